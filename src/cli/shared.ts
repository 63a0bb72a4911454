import { Options } from "@effect/cli"
import { Clock, Console, Effect, Either, FiberRef, HashSet, Layer, Logger, LogLevel, Option } from "effect"
import { closeSync, openSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { farewell } from "../client/screen.js"
import { type ClientExit, exitCode } from "../client/state.js"
import { cs50Rules, type Rules, specRules, type Variant, variants } from "../core/game.js"
import { type GameMap, parseMap, validateMap } from "../core/map.js"
import { lineLogger } from "../log.js"
import type { Dialect } from "../protocol/dialect.js"
import { fitsInDatagram, MaxBytes } from "../protocol/display.js"
import { defaultMapText } from "../server/defaultMap.js"
import { CliError } from "./error.js"

/** What the system said when a file could not be read or written, in words. */
export const fileFailure = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code
  return code === "ENOENT"
    ? "no such file"
    : code === "EACCES"
    ? "permission denied"
    : code === "EISDIR"
    ? "it is a directory"
    : String((error as Error).message ?? error)
}

export const readMapText = (path: string): Effect.Effect<string, CliError> =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (error) => new CliError({ message: `cannot read map file '${path}': ${fileFailure(error)}` })
  })

/** Parses a map and checks that it can be served: its grid fits in a DISPLAY datagram. */
export const parseServableMap = (text: string, source: string): Either.Either<GameMap, CliError> =>
  parseMap(text).pipe(
    Either.mapLeft((error) => new CliError({ message: `invalid map ${source}: ${error.message}` })),
    Either.filterOrLeft(
      (map: GameMap) => fitsInDatagram(map.rows, map.cols),
      (map: GameMap) =>
        new CliError({
          message: `invalid map ${source}: a ${map.rows}x${map.cols} grid does not fit in one DISPLAY datagram ` +
            `(at most ${MaxBytes} bytes)`
        })
    )
  )

/** Reads and checks a map file (the built-in map without one); the error names the file and what is wrong where. */
export const loadMap = (file: Option.Option<string>): Effect.Effect<GameMap, CliError> =>
  Option.match(file, {
    onNone: (): Effect.Effect<readonly [string, string], CliError> => Effect.succeed(["(built-in)", defaultMapText]),
    onSome: (path) => readMapText(path).pipe(Effect.map((text) => [path, text] as const))
  }).pipe(
    Effect.flatMap(([source, text]) =>
      parseServableMap(text, source).pipe(
        Either.flatMap((map) =>
          validateMap(map).pipe(
            Either.mapLeft((problem) => new CliError({ message: `invalid map ${source}: ${problem.message}` }))
          )
        )
      )
    )
  )

export const parseSeed = (text: string): Effect.Effect<number, CliError> =>
  /^\d{1,15}$/.test(text)
    ? Effect.succeed(Number(text))
    : Effect.fail(new CliError({ message: `the seed must be a non-negative integer, not '${text}'` }))

/** Seeds from the clock when no seed is given, so each unseeded game differs. */
export const seedOrClock = (seed: Option.Option<string>) =>
  Option.match(seed, { onNone: () => Clock.currentTimeMillis.pipe(Effect.map(Number)), onSome: parseSeed })

export const checkPort = (port: number, allowAny: boolean): Effect.Effect<number, CliError> =>
  Number.isInteger(port) && port >= (allowAny ? 0 : 1) && port <= 65535
    ? Effect.succeed(port)
    : Effect.fail(new CliError({ message: `the port must be ${allowAny ? 0 : 1}..65535, not ${port}` }))

/** What every way of starting a server checks first: the map, the seed and the port. */
export const gameSetup = (options: {
  readonly mapFile: Option.Option<string>
  readonly seed: Option.Option<string>
  readonly port: number
}) => Effect.all({ map: loadMap(options.mapFile), seed: seedOrClock(options.seed), port: checkPort(options.port, true) })

export const portOption = Options.integer("port").pipe(
  Options.withDescription("UDP port to listen on; 0 picks a free one."),
  Options.withDefault(0)
)

export const hostOption = Options.text("host").pipe(
  Options.withDescription("Address to listen on (0.0.0.0: every interface; 127.0.0.1: this machine only)."),
  Options.withDefault("0.0.0.0")
)

export const variantOption = Options.choice("variant", variants).pipe(
  Options.withDescription("Game rules: classic (the spec's), or steal: moving onto a player also takes 10% of its purse."),
  Options.withDefault("classic" as Variant)
)

/** The rules a server plays by: the dialect's preset, with the chosen variant. */
export const rulesFor = (dialect: Dialect, variant: Variant): Rules => ({
  ...(dialect === "spec" ? specRules : cs50Rules),
  variant
})

export const logOption = Options.file("log").pipe(
  Options.withDescription("write a log to this file"),
  Options.optional
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
 * For a program with a screen. With --log, log to that file. Without, log to stderr only
 * when it is not a terminal (`2>player.log`), so that nothing is written over the screen.
 */
export const screenLogging = (file: Option.Option<string>) =>
  Option.match(file, {
    onSome: (path) => Layer.unwrapScoped(logFile(path).pipe(Effect.map((fd) => onlyLoggers(lineLogger(fd))))),
    onNone: () => process.stderr.isTTY ? onlyLoggers() : onlyLoggers(lineLogger(2))
  })

/** What the player reads after the screen is gone; a refusal or a bad grid is an error. */
export const reportExit = (exit: ClientExit) =>
  Effect.gen(function*() {
    const text = farewell(exit, process.stdout.columns || 80)
    if (exitCode(exit) !== 0) return yield* new CliError({ message: text })
    if (text) yield* Console.log(text)
  })
