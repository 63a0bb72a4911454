import { Effect, Option } from "effect"
import { joinGame } from "../client/session.js"
import { defaultTimings } from "../client/timings.js"
import { terminalLayer } from "../client/terminal.js"
import { checkName, keysSections, needsTerminal, reportExit } from "./client.js"
import { command, decimal, numberProblem, optionalArg, textArg, withDefault } from "./command.js"
import { CliError } from "./error.js"
import { checkOutputs } from "./files.js"
import { logging, screenLogTarget } from "./logging.js"
import { findGame, isLobbyAddress, lobbyUrl } from "./matchmaking.js"
import { logLevelOption, logOption, noColorOption } from "./options.js"

const tryHelp = "try 'nuggets help join'"

/**
 * Where to join, from the words typed: `HOST PORT [NAME]`, or a lobby's address and a
 * name, `http://HOST:PORT NAME`, for a lobby to find the game (see `matchmaking.ts`).
 */
const target = (host: string, second: Option.Option<string>, third: Option.Option<string>) =>
  Effect.gen(function*() {
    if (isLobbyAddress(host)) {
      const url = lobbyUrl(host)
      if (url === undefined) return yield* new CliError({ message: `HOST — '${host}' is not a lobby's address: write http://HOST:PORT` })
      if (Option.isSome(third)) return yield* new CliError({ message: `unexpected argument '${third.value}' — ${tryHelp}` })
      if (Option.isNone(second)) {
        return yield* new CliError({ message: `NAME — missing: a lobby finds a place for a player (nuggets join ${host} NAME)` })
      }
      return { _tag: "Lobby", url, name: second.value } as const
    }
    if (Option.isNone(second)) return yield* new CliError({ message: `PORT — missing; ${tryHelp}` })
    const problem = numberProblem("PORT", second.value, 1, 65535)
    if (problem !== undefined) return yield* new CliError({ message: problem })
    return { _tag: "Game", host, port: Number(second.value), name: third } as const
  })

export const joinNode = command(
  "join",
  {
    summary: "Join a game: as a player with a NAME, or as the spectator without one. Given a lobby's address " +
      "(nuggets host) instead of HOST PORT, the lobby finds the game: one with a free place, or a new one.",
    args: {
      host: textArg("HOST", "name or IPv4/IPv6 address of the machine where the server runs; or a lobby's address, http://HOST:PORT"),
      port: textArg("PORT", "the port the server announced (none after a lobby's address)").pipe(optionalArg()),
      playername: textArg("NAME", "play under this name (cut to 50 characters)").pipe(optionalArg("watch as the spectator"))
    },
    options: {
      timeout: decimal("timeout", "S", 0.1, 3600, "seconds to wait for the server's first answer").pipe(
        withDefault(defaultTimings.answerTimeout / 1000)
      ),
      log: logOption("the screen is never written over"),
      logLevel: logLevelOption,
      noColor: noColorOption
    },
    more: keysSections
  },
  (options, given) =>
    Effect.gen(function*() {
      const { timeout } = options
      const where = yield* target(options.host, options.port, options.playername)
      const playername = where._tag === "Lobby" ? Option.some(where.name) : where.name
      if (Option.isSome(playername)) yield* checkName(playername.value)
      const logTarget = yield* screenLogTarget(options.log, options.logLevel, given)
      yield* checkOutputs(Option.toArray(options.log).map((path) => ({ path, flag: "--log", append: true })), [], false)
      yield* needsTerminal("join", "'nuggets bot' plays without one")
      // The lobby's game, found before the screen opens: a refusal is one line, like any other.
      const game = where._tag === "Game"
        ? { host: where.host, port: where.port, hint: [] }
        : yield* findGame(where.url, `${timeout} seconds`).pipe(
          Effect.map((match) => {
            const which = `game ${match.id}${match.map === undefined ? "" : ` on ${match.map}`}`
            const how = match.opened ? "opened for you" : "joined"
            return { host: match.address, port: match.port, hint: [`${which}, ${how}`, which, match.id] }
          }),
          Effect.mapError((error) => new CliError({ message: error.message }))
        )
      const exit = yield* joinGame(
        {
          host: game.host,
          port: game.port,
          request: Option.match(playername, {
            onNone: () => ({ _tag: "Spectator" }) as const,
            onSome: (name) => ({ _tag: "Player", name }) as const
          }),
          timings: { ...defaultTimings, answerTimeout: timeout * 1000 },
          hint: game.hint
        },
        terminalLayer({ noColor: options.noColor })
      ).pipe(Effect.provide(logging(logTarget)))
      if (exit._tag === "UserQuit" && exit.how === "hangup") {
        // The terminal is gone. End as the signal would have, which also skips Node's own
        // terminal reset at exit: on a hung-up terminal that aborts the process.
        return yield* Effect.sync(() => process.kill(process.pid, "SIGHUP"))
      }
      yield* reportExit(exit)
    })
)
