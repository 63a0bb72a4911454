import { buildSync } from "esbuild"
import { readFileSync } from "node:fs"
import { pageBuildOptions } from "./pageBuild.js"

/**
 * The page's script and style sheet (`page/`). Run from source, the page is bundled here
 * with esbuild when this module loads; the single-file build replaces this module with the
 * bundle's text (see `scripts/build.ts`), so the binary carries the page and needs no
 * esbuild, no file beside it, nothing from elsewhere.
 */
export const pageScript: string = buildSync({ ...pageBuildOptions, write: false }).outputFiles[0]!.text

export const pageStyle: string = readFileSync(new URL("./page/style.css", import.meta.url), "utf8")
