import { Clock, Effect, Either, Option } from "effect"
import { defaultMapText } from "../../maps/default.js"
import { type GameMap, mapProblems, parseMap } from "../core/map.js"
import { fitsInDatagram, MaxBytes } from "../protocol/display.js"
import { CliError } from "./error.js"
import { readText } from "./files.js"

/** A map file's text. */
export const readMapText = (path: string) => readText(path, "the map")

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

export interface GameSetup {
  readonly map: GameMap
  readonly seed: number
  /** The spec's rules the map breaks, for the log: the game is still played. */
  readonly warnings: ReadonlyArray<string>
}

/**
 * What every way of starting a server checks first: the map file (the built-in map without
 * one), which must be one that can be served, and the seed (the clock's without one). The
 * error names the file and what is wrong where.
 */
export const gameSetup = (options: {
  readonly mapFile: Option.Option<string>
  readonly seed: Option.Option<number>
}): Effect.Effect<GameSetup, CliError> =>
  Effect.gen(function*() {
    const source = Option.getOrElse(options.mapFile, () => "(built-in)")
    const text = Option.isSome(options.mapFile) ? yield* readMapText(options.mapFile.value) : defaultMapText
    const map = yield* parseServableMap(text, source)
    const seed = yield* seedOrClock(options.seed)
    return { map, seed, warnings: mapProblems(map).map((problem) => `${source}: ${problem.message}`) }
  })

/** Logs the rules the map breaks, once the log is where the user asked. */
export const logWarnings = (setup: GameSetup) => Effect.forEach(setup.warnings, (warning) => Effect.logWarning(warning))

/** Seeds from the clock when no seed is given, so each unseeded game differs. */
export const seedOrClock = (seed: Option.Option<number>) =>
  Option.match(seed, { onNone: () => Clock.currentTimeMillis.pipe(Effect.map(Number)), onSome: Effect.succeed })
