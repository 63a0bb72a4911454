import { readFileSync } from "node:fs"

/**
 * The spec's example map (`main.txt`, beside this file), served when no map is given. The
 * single-file build replaces this module with the text itself, so the binary needs no
 * files beside it.
 */
export const defaultMapText: string = readFileSync(new URL("./main.txt", import.meta.url), "utf8")
