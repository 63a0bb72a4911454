import { Effect, FiberRef, HashSet, Layer, Logger, LogLevel, Option } from "effect"
import { closeSync, openSync } from "node:fs"
import { jsonLogger, lineLogger } from "../log.js"
import { errnoOf, errnoWords } from "../net/errno.js"
import { CliError } from "./error.js"
import type { LogFormat, LogLevelName } from "./options.js"

const loggerOf = (target: LogTarget, fd: number) => (target.format === "json" ? jsonLogger(fd) : lineLogger(fd))

const levels: Readonly<Record<LogLevelName, LogLevel.LogLevel>> = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
}

/** Exactly these loggers, instead of whatever the program set up. */
const onlyLoggers = (loggers: ReadonlyArray<Logger.Logger<unknown, void>>, level: LogLevelName) =>
  Layer.merge(
    Layer.locallyScoped(FiberRef.currentLoggers, HashSet.fromIterable(loggers)),
    Logger.minimumLogLevel(levels[level])
  )

/** A log file, added to at its end, open for as long as the scope. */
const logFile = (path: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => openSync(path, "a"),
      catch: (error) => new CliError({ message: `${path} — cannot write the log: ${errnoWords(errnoOf(error), String(error))}` })
    }),
    (fd) => Effect.sync(() => closeSync(fd))
  )

export interface LogTarget {
  /** `--log FILE`. */
  readonly file: Option.Option<string>
  readonly level: LogLevelName
  /**
   * The command draws a screen on the terminal: without --log, it logs to stderr only when
   * that is not the terminal (`2>player.log`), so that nothing is written over the screen.
   */
  readonly screen: boolean
  /** One line of text per entry (the default), or one JSON object. */
  readonly format?: LogFormat
}

/** Whether any log is written at all: a screen on a terminal and no --log keep it quiet. */
const logsSomewhere = (target: LogTarget): boolean =>
  Option.isSome(target.file) || !target.screen || process.stderr.isTTY !== true

/**
 * The log of a command that draws a screen (`play`, `join`): `--log FILE`, else stderr when
 * it is not the terminal. `--log-level` with neither is refused, as it could not act.
 */
export const screenLogTarget = (
  file: Option.Option<string>,
  level: LogLevelName,
  given: ReadonlyArray<string>
): Effect.Effect<LogTarget, CliError> => {
  const target: LogTarget = { file, level, screen: true }
  return given.includes("--log-level") && !logsSomewhere(target)
    ? Effect.fail(new CliError({ message: "--log-level — only with --log FILE or 2>FILE: nothing is logged over the screen" }))
    : Effect.succeed(target)
}

/** Where the log goes, one line per entry: FILE with --log, else stderr (see `screen`). */
export const logging = (target: LogTarget) =>
  Option.match(target.file, {
    onSome: (path) => Layer.unwrapScoped(logFile(path).pipe(Effect.map((fd) => onlyLoggers([loggerOf(target, fd)], target.level)))),
    onNone: () => onlyLoggers(logsSomewhere(target) ? [loggerOf(target, 2)] : [], target.level)
  })
