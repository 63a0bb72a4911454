import { Options } from "@effect/cli"
import { Clock, Console, Effect, Either, FiberRef, HashSet, Layer, Logger, LogLevel, Option } from "effect"
import { closeSync, openSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { farewell, keyHelp } from "../client/screen.js"
import { type ClientExit, exitCode } from "../client/state.js"
import { cs50Rules, type Rules, specRules, type Variant, variants } from "../core/rules.js"
import { type GameMap, mapProblems, parseMap } from "../core/map.js"
import { lineLogger } from "../log.js"
import type { Dialect } from "../protocol/dialect.js"
import { fitsInDatagram, MaxBytes } from "../protocol/display.js"
import { defaultMapText } from "../server/defaultMap.js"
import { parseWebAddress, type WebAddress } from "../web/address.js"
import { CliError } from "./error.js"
import { type HelpEntry, wholeNumberOption } from "./runner.js"

/** What the system said when a file could not be read or written, in words. */
export const fileFailure = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code
  return code === "ENOENT"
    ? "no such file or folder"
    : code === "EACCES"
    ? "permission denied"
    : code === "EISDIR"
    ? "it is a directory"
    : String((error as Error).message ?? error)
}

export const readMapText = (path: string): Effect.Effect<string, CliError> =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (error) => new CliError({ message: `${path} — cannot read the map: ${fileFailure(error)}` })
  })

/** Parses a map and checks that it can be served: its grid fits in a DISPLAY datagram. */
export const parseServableMap = (text: string, source: string): Either.Either<GameMap, CliError> =>
  parseMap(text).pipe(
    Either.mapLeft((error) => new CliError({ message: `${source} — not a map: ${error.message}` })),
    Either.filterOrLeft(
      (map: GameMap) => fitsInDatagram(map.rows, map.cols),
      (map: GameMap) =>
        new CliError({
          message: `${source} — too large: a ${map.rows}x${map.cols} grid does not fit in one DISPLAY datagram ` +
            `(at most ${MaxBytes} bytes)`
        })
    )
  )

/**
 * Reads a map file (the built-in map without one) and checks that it can be served; the
 * error names the file and what is wrong where. Broken rules of the spec are logged as
 * warnings: the game is still played.
 */
export const loadMap = (file: Option.Option<string>): Effect.Effect<GameMap, CliError> =>
  Effect.gen(function*() {
    const source = Option.getOrElse(file, () => "(built-in)")
    const text = Option.isSome(file) ? yield* readMapText(file.value) : defaultMapText
    const map = yield* parseServableMap(text, source)
    for (const problem of mapProblems(map)) yield* Effect.logWarning(`${source}: ${problem.message}`)
    return map
  })

/** The largest seed: any whole number JavaScript counts exactly. */
export const maxSeed = Number.MAX_SAFE_INTEGER

/** Seeds from the clock when no seed is given, so each unseeded game differs. */
export const seedOrClock = (seed: Option.Option<number>) =>
  Option.match(seed, { onNone: () => Clock.currentTimeMillis.pipe(Effect.map(Number)), onSome: Effect.succeed })

/** What every way of starting a server checks first: the map and the seed. */
export const gameSetup = (options: { readonly mapFile: Option.Option<string>; readonly seed: Option.Option<number> }) =>
  Effect.all({ map: loadMap(options.mapFile), seed: seedOrClock(options.seed) })

export const portOption = wholeNumberOption("port", 0, 65535).pipe(Options.withDefault(0))
export const portHelp: HelpEntry = { term: "--port N", text: "UDP port to listen on; 0 picks a free one", default: "0" }

export const hostOption = Options.text("host").pipe(Options.withDefault("0.0.0.0"))
export const hostHelp: HelpEntry = {
  term: "--host ADDR",
  text: "address to listen on: 0.0.0.0 every interface, 127.0.0.1 this machine only, :: IPv6",
  default: "0.0.0.0"
}

export const variantOption = Options.choice("variant", variants).pipe(Options.withDefault("classic" as Variant))
export const variantHelp: HelpEntry = {
  term: "--variant RULES",
  text: "classic (the spec's), or steal: moving onto a player also takes 10% of its purse",
  default: "classic"
}

/** The rules a server plays by: the dialect's preset, with the chosen variant. */
export const rulesFor = (dialect: Dialect, variant: Variant): Rules => ({
  ...(dialect === "spec" ? specRules : cs50Rules),
  variant
})

const logLevels = { debug: LogLevel.Debug, info: LogLevel.Info, warning: LogLevel.Warning, error: LogLevel.Error, none: LogLevel.None }
export const logLevelOption = Options.choice("log-level", ["debug", "info", "warning", "error", "none"] as const).pipe(
  Options.withDefault("info" as const)
)
export const logLevelHelp: HelpEntry = {
  term: "--log-level L",
  text: "debug (every refused datagram and key), info, warning, error or none",
  default: "info"
}
export const withLogLevel = (level: keyof typeof logLevels) => Logger.withMinimumLogLevel(logLevels[level])

export const recordOption = Options.text("record").pipe(Options.optional)
export const recordHelp: HelpEntry = {
  term: "--record FILE",
  text: "record the game to FILE as it is played; watch it again with 'nuggets replay FILE'"
}

export const webOption = Options.text("web").pipe(Options.optional)
export const webHelp: HelpEntry = {
  term: "--web [HOST:]PORT",
  text: "also serve the game to browsers, to watch and to play (HOST 127.0.0.1 unless given; 0.0.0.0 for a LAN)"
}

/** `--web`'s address, checked before anything starts. */
export const webAddress = (text: Option.Option<string>): Effect.Effect<Option.Option<WebAddress>, CliError> =>
  Option.match(text, {
    onNone: () => Effect.succeed(Option.none()),
    onSome: (value) =>
      parseWebAddress(value).pipe(
        Either.map(Option.some),
        Either.mapLeft((error) => new CliError({ message: error.message }))
      )
  })

export const logOption = Options.text("log").pipe(Options.optional)
export const logHelp: HelpEntry = { term: "--log FILE", text: "write a log to this file (the screen is never written over)" }

/** The keys, as help lists them under the commands that play: the same list as the `?` overlay. */
export const keysHelp = `Keys:\n${
  keyHelp.map(([keys, what]) => `  ${keys.padEnd(Math.max(...keyHelp.map(([each]) => each.length)))}  ${what}`).join("\n")
}\nThe spectator can only quit.`

export const noColorOption = Options.boolean("no-color")
export const noColorHelp: HelpEntry = { term: "--no-color", text: "no colours (as when NO_COLOR is set or the output is not a terminal)" }

/** A player's name, checked here rather than refused by the server: not empty, not only blanks. */
export const checkName = (name: string): Effect.Effect<string, CliError> =>
  name.trim() === "" ? Effect.fail(new CliError({ message: "NAME — must not be empty or blank" })) : Effect.succeed(name)

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
        new CliError({ message: `${path} — cannot write the log: ${fileFailure(error)}` })
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
