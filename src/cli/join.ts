import { Args, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Duration, Effect, Option } from "effect"
import { defaultAnswerTimeout, joinGame } from "../client/session.js"
import { terminalLayer } from "../client/terminal.js"
import { CliError } from "./error.js"
import { logOption, reportExit, screenLogging } from "./shared.js"

const host = Args.text({ name: "host" }).pipe(
  Args.withDescription("name or IPv4/IPv6 address of the machine where the server runs")
)

const port = Args.text({ name: "port" }).pipe(
  Args.withDescription("the port the server announced"),
  Args.mapEffect((text) =>
    /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535
      ? Effect.succeed(Number(text))
      : Effect.fail(HelpDoc.p(`port must be a number from 1 to 65535, not ${JSON.stringify(text)}`))
  )
)

const playername = Args.text({ name: "playername" }).pipe(
  Args.withDescription("play under this name (cut to 50 characters); without it, watch as the spectator"),
  Args.optional
)

const timeout = Options.float("timeout").pipe(
  Options.withDescription("seconds to wait for the server's first answer"),
  Options.mapEffect((seconds) =>
    seconds > 0
      ? Effect.succeed(seconds)
      : Effect.fail(ValidationError.invalidValue(HelpDoc.p("--timeout must be more than 0 seconds")))
  ),
  Options.withDefault(Duration.toSeconds(defaultAnswerTimeout))
)

export const joinCommand = Command.make(
  "join",
  { host, port, playername, log: logOption, timeout },
  ({ host, log, playername, port, timeout }) =>
    Effect.gen(function*() {
      const exit = yield* joinGame(
        {
          host,
          port,
          request: Option.match(playername, {
            onNone: () => ({ _tag: "Spectator" }) as const,
            onSome: (name) => ({ _tag: "Player", name }) as const
          }),
          answerTimeout: Duration.seconds(timeout)
        },
        terminalLayer
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
).pipe(Command.withDescription("Join a game as a player (with a name) or as the spectator (without)."))
