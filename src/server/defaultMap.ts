import { readFileSync } from "node:fs"

/**
 * The spec's example map, served when no map is given. The single-file build replaces
 * this module with the text itself, so the binary needs no files beside it.
 */
export const defaultMapText: string = readFileSync(new URL("../../maps/main.txt", import.meta.url), "utf8")
