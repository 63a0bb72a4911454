import { Args, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Console, Duration, Effect, FiberRef, HashSet, Layer, Logger, LogLevel, Option } from "effect"
import { closeSync, openSync } from "node:fs"
import { CliError } from "../cliError.js"
import { lineLogger } from "../log.js"
import { defaultAnswerTimeout, join } from "./join.js"
import { farewell } from "./screen.js"
import { type Ending, exitCode } from "./state.js"
import { terminalLayer } from "./terminal.js"

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

export const log = Options.file("log").pipe(
  Options.withDescription("write a log to this file"),
  Options.optional
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

/** Exactly these loggers, instead of whatever the program set up (stderr, where the screen is). */
const onlyLoggers = (...loggers: ReadonlyArray<Logger.Logger<unknown, void>>) =>
  Layer.merge(
    Layer.locallyScoped(FiberRef.currentLoggers, HashSet.fromIterable(loggers)),
    Logger.minimumLogLevel(LogLevel.Debug)
  )

const logFile = (path: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => openSync(path, "a"),
      catch: (error) =>
        new CliError({
          message: `cannot write the log to ${JSON.stringify(path)}: ${(error as NodeJS.ErrnoException).code ?? error}`
        })
    }),
    (fd) => Effect.sync(() => closeSync(fd))
  )

/**
 * With --log, log to that file. Without, log to stderr only when it is not a terminal
 * (`2>player.log`), so that nothing is written over the game's screen.
 */
export const loggerLayer = (file: Option.Option<string>) =>
  Option.match(file, {
    onSome: (path) => Layer.unwrapScoped(logFile(path).pipe(Effect.map((fd) => onlyLoggers(lineLogger(fd))))),
    onNone: () => process.stderr.isTTY ? onlyLoggers() : onlyLoggers(lineLogger(2))
  })

/** What the player reads after the screen is gone; a refusal or a bad grid is an error. */
export const reportEnding = (ending: Ending) =>
  Effect.gen(function*() {
    const text = farewell(ending, process.stdout.columns || 80)
    if (exitCode(ending) !== 0) return yield* new CliError({ message: text })
    if (text) yield* Console.log(text)
  })

export const joinCommand = Command.make(
  "join",
  { host, port, playername, log, timeout },
  ({ host, log, playername, port, timeout }) =>
    Effect.gen(function*() {
      const ending = yield* join(
        {
          host,
          port,
          role: Option.match(playername, {
            onNone: () => ({ _tag: "Spectator" }) as const,
            onSome: (name) => ({ _tag: "Player", name }) as const
          }),
          answerTimeout: Duration.seconds(timeout)
        },
        terminalLayer
      )
      if (ending._tag === "UserQuit" && ending.how === "hangup") {
        // The terminal is gone. End as the signal would have, which also skips Node's own
        // terminal reset at exit: on a hung-up terminal that aborts the process.
        return yield* Effect.sync(() => process.kill(process.pid, "SIGHUP"))
      }
      yield* reportEnding(ending)
    }).pipe(
      Effect.provide(loggerLayer(log)),
      Effect.catchTags({
        JoinError: (error) => new CliError({ message: error.message }),
        UdpError: (error) => new CliError({ message: error.message })
      })
    )
).pipe(Command.withDescription("Join a game as a player (with a name) or as the spectator (without)."))
