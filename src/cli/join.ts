import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { joinGame } from "../client/session.js"
import { defaultTimings } from "../client/state.js"
import { terminalLayer } from "../client/terminal.js"
import { CliError } from "./error.js"
import { decimalOption, leaf, wholeNumberArg } from "./runner.js"
import { checkName, keysHelp, logHelp, logOption, noColorHelp, noColorOption, reportExit, screenLogging } from "./shared.js"

const joinCommand = Command.make(
  "join",
  {
    host: Args.text({ name: "HOST" }),
    port: wholeNumberArg("PORT", 1, 65535),
    playername: Args.text({ name: "NAME" }).pipe(Args.optional),
    log: logOption,
    timeout: decimalOption("timeout", 0.1, 3600).pipe(Options.withDefault(defaultTimings.answerTimeout / 1000)),
    noColor: noColorOption
  },
  ({ host, log, noColor, playername, port, timeout }) =>
    Effect.gen(function*() {
      if (Option.isSome(playername)) yield* checkName(playername.value)
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
        terminalLayer({ noColor })
      )
      if (exit._tag === "UserQuit" && exit.how === "hangup") {
        // The terminal is gone. End as the signal would have, which also skips Node's own
        // terminal reset at exit: on a hung-up terminal that aborts the process.
        return yield* Effect.sync(() => process.kill(process.pid, "SIGHUP"))
      }
      yield* reportExit(exit)
    }).pipe(
      Effect.provide(screenLogging(log)),
      Effect.catchTags({
        ConnectError: (error) => new CliError({ message: error.message }),
        UdpError: (error) => new CliError({ message: error.message })
      })
    )
)

export const joinNode = leaf(joinCommand, {
  summary: "Join a game: as a player with a NAME, or as the spectator without one.",
  usage: "[options] HOST PORT [NAME]",
  args: [
    { term: "HOST", text: "name or IPv4/IPv6 address of the machine where the server runs" },
    { term: "PORT", text: "the port the server announced" },
    { term: "NAME", text: "play under this name (cut to 50 characters)", default: "watch as the spectator" }
  ],
  options: [
    logHelp,
    { term: "--timeout S", text: "seconds to wait for the server's first answer", default: String(defaultTimings.answerTimeout / 1000) },
    noColorHelp
  ],
  more: keysHelp
})
