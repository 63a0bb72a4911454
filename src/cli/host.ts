import { Console, Context, Duration, Effect, Either, Layer, Option } from "effect"
import { homedir, hostname, networkInterfaces } from "node:os"
import { isIPv6 } from "node:net"
import { setFlagsFromString } from "node:v8"
import { archiveFiles, dataDirectory } from "../archive/dataDir.js"
import type { Dialect } from "../protocol/dialect.js"
import { Host, type HostSettings } from "../host/host.js"
import { builtInMaps, type HostMap, mapsInFolder } from "../host/maps.js"
import { parsePortRange, type PortRange, rangeSize } from "../host/ports.js"
import { HostWeb } from "../host/web.js"
import { Admission } from "../host/admission.js"
import { drainThenStop } from "../host/drain.js"
import { nextSignal } from "./signals.js"
import { processLogFields } from "../log.js"
import { readOperatorToken } from "./secrets.js"
import { databaseName, databaseUrl } from "../fleet/database.js"
import { defaultFleetTimings, leaseTimings, Membership } from "../fleet/membership.js"
import { lanAddress } from "../net/lan.js"
import { Udp } from "../net/udp.js"
import { dataOption } from "./archive.js"
import { hostLayers } from "./hostLayers.js"
import { command, duration, excludes, needs, optional, text, wholeNumber, withDefault } from "./command.js"
import { CliError, toCliError } from "./error.js"
import { checkOutputs } from "./files.js"
import { logging } from "./logging.js"
import {
  compatOption,
  hostOption,
  idleTimeoutOption,
  logFormatOption,
  logLevelOption,
  logOption,
  variantOption,
  webAddress,
  webLines,
  webNameOption
} from "./options.js"
import { plural } from "../words.js"

/** Where the lobby is served unless `--web` says: this machine only, on a port people know. */
const defaultWeb = "8080"
/** Host at once unless `--max-games` says: what the bench holds a small machine to (about 250 MB for 100). */
export const defaultMaxGames = 100

const hostOptions = {
  web: text("web", "[HOST:]PORT", "where the lobby is served: the games, a new game, past games, the leaderboard, the JSON API " +
    "(HOST 127.0.0.1 unless given; 0.0.0.0 for a LAN)").pipe(withDefault(defaultWeb, "8080, on 127.0.0.1")),
  data: dataOption,
  database: text("database", "URL", "join the fleet of every host on this PostgreSQL database (postgres://USER@HOST:PORT/DB): " +
    "one lobby, one archive and one leaderboard for all of them").pipe(optional("no fleet: the archive is SQLite in the data directory")),
  drain: duration("drain", "DURATION", "on SIGTERM (or Ctrl-C), take no new game or player and let the games in play go on " +
    "for up to DURATION, then end them; a second signal ends them at once").pipe(optional("SIGTERM ends every game at once")),
  adminTokenFile: text("admin-token-file", "FILE", "the operator's token, in a file only its owner may read: " +
    "DELETE /api/games/ID with Authorization: Bearer TOKEN ends a game").pipe(optional("no one may end a game by the API")),
  lease: duration("lease", "DURATION", "in a fleet, how long a host may go unheard before another ends its games for the fleet; " +
    "each renews its own every third of it").pipe(withDefault(Duration.decode(defaultFleetTimings.leaseFor), "15s")),
  ports: text("ports", "FIRST-LAST", "the UDP ports games take, one each (CS50 clients reach a game by its port)").pipe(
    optional("free ports the system picks")
  ),
  maps: text("maps", "DIR", "the maps games are played on, in turn: every DIR/*.txt, named by its file").pipe(
    optional("the built-in maps: main, small, hole")
  ),
  open: wholeNumber("open", "N", 0, 1000, "keep N games with free places open: when one fills up or ends, another starts").pipe(
    withDefault(1)
  ),
  maxGames: wholeNumber("max-games", "N", 1, 10_000, "the most games at once; a request for one more is refused").pipe(
    withDefault(defaultMaxGames)
  ),
  host: hostOption,
  webName: webNameOption,
  idleTimeout: idleTimeoutOption,
  variant: variantOption,
  compat: compatOption(
    "games speak the later CS50 protocol unless asked otherwise (most CS50 clients do): QUIT GAME OVER, ERROR, sight through room spots only"
  ),
  log: logOption("instead of stderr"),
  logLevel: logLevelOption,
  logFormat: logFormatOption
}

export const hostNode = command(
  "host",
  {
    summary: "Host many games in one process, each on its own UDP port, with a lobby in the browser, a JSON API, " +
      "and an archive of every game (recorded in the data directory). Stops with Ctrl-C or SIGTERM.",
    options: hostOptions,
    rules: [excludes("--database", "--data"), needs("--lease", "--database")]
  },
  (options) =>
    Effect.gen(function*() {
      const web = Option.getOrThrow(yield* webAddress(Option.some(options.web), options.webName))
      const database = yield* Option.match(options.database, {
        onNone: () => Effect.succeed(Option.none<URL>()),
        onSome: (text) => {
          const url = databaseUrl(text)
          return url === undefined
            ? Effect.fail(new CliError({ message: `--database — ${JSON.stringify(text)} is not a PostgreSQL URL; write postgres://USER@HOST:PORT/DB` }))
            : Effect.succeed(Option.some(url))
        }
      })
      const ports = yield* Option.match(options.ports, {
        onNone: () => Effect.succeed<PortRange | undefined>(undefined),
        onSome: (text) => Either.mapLeft(parsePortRange(text), (error) => new CliError({ message: error.message }))
      })
      if (ports !== undefined && rangeSize(ports) < options.maxGames) {
        const given = Option.getOrElse(options.ports, () => "")
        return yield* new CliError({
          message: `--max-games — ${options.maxGames} games need as many ports; --ports ${given} has ${rangeSize(ports)}`
        })
      }
      if (options.open > options.maxGames) {
        return yield* new CliError({ message: `--open — ${options.open} games cannot stay open with --max-games ${options.maxGames}` })
      }
      yield* checkOutputs(Option.toArray(options.log).map((path) => ({ path, flag: "--log", append: true })), [], false)
      const operator = yield* Option.match(options.adminTokenFile, { onNone: () => Effect.succeedNone, onSome: (file) => Effect.map(readOperatorToken(file), Option.some) })
      const maps: ReadonlyArray<HostMap> = yield* Option.match(options.maps, {
        onNone: () => Effect.succeed(builtInMaps()),
        onSome: (folder) => Effect.mapError(mapsInFolder(folder), (error) => new CliError({ message: error.message }))
      })
      // The games' address, tried once before anything starts: a typo is one line, not a game that cannot open.
      yield* Effect.scoped(Effect.flatMap(Udp, (udp) => udp.open({ host: options.host })))
      const dataDir = dataDirectory({ flag: Option.getOrUndefined(options.data), env: process.env, home: homedir(), cwd: process.cwd() })
      const dialect: Dialect = Option.isSome(options.compat) ? "2021" : "2019"
      const settings: HostSettings = {
        maps,
        udpHost: options.host,
        ports,
        open: options.open,
        maxGames: options.maxGames,
        idleTimeout: options.idleTimeout,
        variant: options.variant,
        dialect,
        joinAddress: lanAddress(options.host, networkInterfaces(), hostname())
      }
      const hosting = hostLayers(web, settings, Option.match(database, {
        onNone: () => ({ _tag: "Alone", dataDir }) as const,
        onSome: (url) => ({
          _tag: "Fleet",
          url,
          machine: hostname(),
          card: { lobbyUrl: "", joinAddress: settings.joinAddress, ports: Option.getOrUndefined(options.ports), maxGames: options.maxGames },
          timings: leaseTimings(options.lease)
        }) as const
      }), operator)
      const running = Effect.gen(function*() {
        // A host is busy: its young generation may grow as V8 would grow it (main.ts keeps a lone server's at its first size).
        setFlagsFromString("--semi-space-growth-factor=2")
        yield* Effect.forEach(maps.flatMap((each) => each.warnings), (warning) => Effect.logWarning(warning), { discard: true })
        const context = yield* Layer.build(hosting)
        const games = Context.get(context, Host)
        const lobby = Context.get(context, HostWeb)
        const files = archiveFiles(dataDir)
        const member = Context.getOption(context, Membership)
        if (Option.isSome(member)) {
          processLogFields["host"] = member.value.hostId
          // Other hosts send players to this host's lobby by the address a browser reaches it at.
          yield* member.value.announce(lobby.lanUrls[0] ?? lobby.url)
          yield* Console.log(`Fleet: ${Option.map(database, databaseName).pipe(Option.getOrElse(() => ""))} (this host is ${member.value.hostId})`)
        } else {
          yield* Console.log(`Data directory: ${dataDir} (the recordings in ${files.games}, their index in ${files.database})`)
        }
        yield* Console.log(webLines("Lobby", lobby))
        yield* Effect.logInfo(
          `hosting up to ${plural(options.maxGames, "game")} (${options.open} kept open) on ${maps.map((each) => each.name).join(", ")}` +
            `, UDP on ${isIPv6(options.host) ? `[${options.host}]` : options.host}` +
            (ports === undefined ? " (free ports)" : ` ports ${ports.first}-${ports.last}`) +
            `, ${dialect} dialect` + (options.variant === "classic" ? "" : `, ${options.variant} variant`) +
            `, lobby at ${lobby.url}` + Option.match(database, { onNone: () => `, data in ${dataDir}`, onSome: (url) => `, in the fleet on ${databaseName(url)}` })
        )
        const again = yield* nextSignal
        const admission = Context.get(context, Admission)
        // Stopped (Ctrl-C, SIGTERM): every game ends as `serve` ends its game, before the lobby closes; with --drain, once they have ended.
        yield* Effect.never.pipe(Effect.onInterrupt(() =>
          Option.match(options.drain, {
            onNone: () => games.stopAll,
            onSome: (limit) => drainThenStop(games, admission, limit, again)
          })
        ))
      })
      yield* Effect.scoped(running).pipe(Effect.provide(logging({ file: options.log, level: options.logLevel, screen: false, format: options.logFormat })))
    }).pipe(Effect.mapError(toCliError))
)
