import { Effect, Either } from "effect"
import { readdir, readFile } from "node:fs/promises"
import { basename, join } from "node:path"
import { type GameMap, mapProblems, parseMap } from "../core/map.js"
import { errnoOf, errnoWords } from "../net/errno.js"
import { fitsInDatagram, MaxBytes } from "../protocol/display.js"
import { builtInMapTexts } from "./builtInMaps.js"
import { HostError } from "./errors.js"

/** A map a host offers: by its name (its file's, without `.txt`), its text, the map, and the spec's rules it breaks. */
export interface HostMap {
  readonly name: string
  readonly text: string
  readonly map: GameMap
  readonly warnings: ReadonlyArray<string>
}

/** `text`, from `source`, as a map a game can be played on: one that parses and fits in a DISPLAY datagram. */
const servable = (name: string, text: string, source: string): Either.Either<HostMap, string> =>
  Either.mapLeft(parseMap(text), (error) => `${source} — not a map: ${error.message}`).pipe(
    Either.filterOrLeft(
      (map) => fitsInDatagram(map.rows, map.cols),
      (map) => `${source} — too large: a ${map.rows}x${map.cols} grid does not fit in one DISPLAY datagram (at most ${MaxBytes} bytes)`
    ),
    Either.map((map) => ({ name, text, map, warnings: mapProblems(map).map((problem) => `${source}: ${problem.message}`) }))
  )

/** The maps built into the program (see `builtInMaps.ts`). */
export const builtInMaps = (): ReadonlyArray<HostMap> =>
  builtInMapTexts.map(([name, text]) => Either.getOrThrow(servable(name, text, `(built-in ${name})`)))

/**
 * Every `*.txt` in `folder`, in name order, each a map that can be served: one that cannot
 * is refused by name, with why, rather than left out without a word.
 */
export const mapsInFolder = (folder: string): Effect.Effect<ReadonlyArray<HostMap>, HostError> =>
  Effect.gen(function*() {
    const failed = (path: string, what: string) => (error: unknown) =>
      new HostError({ reason: "Maps", message: `${path} — cannot read ${what}: ${errnoWords(errnoOf(error), String(error))}` })
    const names = yield* Effect.tryPromise({ try: () => readdir(folder), catch: failed(folder, "the folder of maps") })
    const files = names.filter((name) => name.endsWith(".txt")).sort()
    if (files.length === 0) return yield* new HostError({ reason: "Maps", message: `${folder} — holds no map (*.txt)` })
    return yield* Effect.forEach(files, (file) => {
      const path = join(folder, file)
      return Effect.tryPromise({ try: () => readFile(path, "utf8"), catch: failed(path, "the map") }).pipe(
        Effect.flatMap((text) =>
          Either.mapLeft(servable(basename(file, ".txt"), text, path), (message) => new HostError({ reason: "Maps", message }))
        )
      )
    })
  })
