import { Console, Duration, Effect, Option } from "effect"
import { isIPv6 } from "node:net"
import { UdpSocket } from "../net/udp.js"
import { dialects } from "../protocol/dialect.js"
import { gameOver, lingerAfterGame } from "../server/udpLoop.js"
import { WebPage } from "../web/live.js"
import { choice, command, eitherOf, needs, optional } from "./command.js"
import { checkOutputs } from "./files.js"
import { hostingLayer } from "./hosting.js"
import { logging } from "./logging.js"
import { gameSetup, logWarnings } from "./maps.js"
import {
  hostOption,
  idleTimeoutOption,
  logLevelOption,
  logOption,
  mapArg,
  mapOption,
  overwriteOption,
  portOption,
  recordOption,
  rulesFor,
  seedArg,
  seedOption,
  variantOption,
  webAddress,
  webLines,
  webNameOption,
  webOption
} from "./options.js"

const compatOption = choice(
  "compat",
  "cs50-2021",
  dialects.filter((dialect) => dialect !== "spec"),
  "speak the later CS50 protocol: QUIT GAME OVER, ERROR, sight through room spots only"
).pipe(optional())

export const serveNode = command(
  "serve",
  {
    summary: "Run a game server. Prints the port, then the game-over summary; logs go to stderr (or to --log FILE).",
    args: { mapArg, seedArg },
    options: {
      map: mapOption,
      seed: seedOption,
      port: portOption,
      host: hostOption,
      compat: compatOption,
      variant: variantOption,
      record: recordOption,
      overwrite: overwriteOption("--record"),
      web: webOption,
      webName: webNameOption,
      idleTimeout: idleTimeoutOption,
      log: logOption("instead of stderr"),
      logLevel: logLevelOption
    },
    rules: [needs("--overwrite", "--record"), needs("--web-name", "--web")]
  },
  (options) =>
    Effect.gen(function*() {
      const mapFile = yield* eitherOf(options.mapArg, options.map, ["MAP", "--map"])
      const seedGiven = yield* eitherOf(options.seedArg, options.seed, ["SEED", "--seed"])
      const dialect = Option.getOrElse(options.compat, () => "spec" as const)
      const web = yield* webAddress(options.web, options.webName)
      const record = Option.getOrUndefined(options.record)
      yield* checkOutputs(
        [
          ...(record === undefined ? [] : [{ path: record, flag: "--record" }]),
          ...Option.toArray(options.log).map((path) => ({ path, flag: "--log", append: true }))
        ],
        Option.toArray(mapFile).map((path) => ({ path, what: "the map" })),
        options.overwrite
      )
      const setup = yield* gameSetup({ mapFile, seed: seedGiven })
      const { map, seed } = setup
      const serving = Effect.gen(function*() {
        const socket = yield* UdpSocket
        const page = yield* Effect.serviceOption(WebPage)
        // Everything is listening by now: the port line announces a game ready in every way it is offered.
        yield* Console.log(`Ready to play, waiting at port ${socket.local.port}`)
        if (Option.isSome(page)) yield* Console.log(webLines("Watch and play in a browser", page.value))
        yield* Effect.logInfo(
          `serving a ${map.rows}x${map.cols} map on ${socket.local.address}:${socket.local.port}, seed ${seed}` +
            (dialect === "spec" ? "" : `, ${dialect} dialect`) +
            (options.variant === "classic" ? "" : `, ${options.variant} variant`) +
            (record === undefined ? "" : `, recording to ${record}`) +
            `, players silent for ${Duration.format(options.idleTimeout)} count as having quit` +
            Option.match(page, { onNone: () => "", onSome: ({ url }) => `, web page at ${url}` })
        )
        const result = yield* gameOver
        yield* Console.log(result.summary.trimEnd())
        yield* lingerAfterGame()
      })
      const hosting = hostingLayer({
        game: { map, seed, dialect, rules: rulesFor(dialect, options.variant), idleTimeout: options.idleTimeout },
        udp: { port: options.port, host: options.host, family: isIPv6(options.host) ? "udp6" : "udp4" },
        ...(record === undefined ? {} : { record: { path: record, overwrite: options.overwrite } }),
        ...(Option.isSome(web) ? { web: web.value } : {})
      })
      yield* logWarnings(setup).pipe(
        Effect.zipRight(serving.pipe(Effect.provide(hosting))),
        Effect.provide(logging({ file: options.log, level: options.logLevel, screen: false }))
      )
    })
)
