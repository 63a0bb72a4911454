import { readFileSync } from "node:fs"
import { defaultMapText } from "../../maps/default.js"

/**
 * The maps a host offers when it is given no `--maps` folder, by name: the spec's example
 * map and the two small ones beside it in `maps/`. The single-file build replaces this
 * module with the texts themselves (see `scripts/build.ts`), so the binary needs no files.
 */
export const builtInMapTexts: ReadonlyArray<readonly [name: string, text: string]> = [
  ["main", defaultMapText],
  ["small", readFileSync(new URL("../../maps/small.txt", import.meta.url), "utf8")],
  ["hole", readFileSync(new URL("../../maps/hole.txt", import.meta.url), "utf8")]
]
