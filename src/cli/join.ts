import { Effect, Option } from "effect"
import { joinGame } from "../client/session.js"
import { defaultTimings } from "../client/timings.js"
import { terminalLayer } from "../client/terminal.js"
import { checkName, keysSections, needsTerminal, reportExit } from "./client.js"
import { command, decimal, optionalArg, textArg, wholeNumberArg, withDefault } from "./command.js"
import { checkOutputs } from "./files.js"
import { logging, screenLogTarget } from "./logging.js"
import { logLevelOption, logOption, noColorOption } from "./options.js"

export const joinNode = command(
  "join",
  {
    summary: "Join a game: as a player with a NAME, or as the spectator without one.",
    args: {
      host: textArg("HOST", "name or IPv4/IPv6 address of the machine where the server runs"),
      port: wholeNumberArg("PORT", 1, 65535, "the port the server announced"),
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
      const { host, playername, port, timeout } = options
      if (Option.isSome(playername)) yield* checkName(playername.value)
      const logTarget = yield* screenLogTarget(options.log, options.logLevel, given)
      yield* checkOutputs(Option.toArray(options.log).map((path) => ({ path, flag: "--log", append: true })), [], false)
      yield* needsTerminal("join", "'nuggets bot' plays without one")
      const exit = yield* joinGame(
        {
          host,
          port,
          request: Option.match(playername, {
            onNone: () => ({ _tag: "Spectator" }) as const,
            onSome: (name) => ({ _tag: "Player", name }) as const
          }),
          timings: { ...defaultTimings, answerTimeout: timeout * 1000 }
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
