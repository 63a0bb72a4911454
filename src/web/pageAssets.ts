import { buildSync } from "esbuild"
import { readFileSync } from "node:fs"
import { pageBuildOptions } from "./pageBuild.js"

/**
 * The page's script and style sheet (`page/`). Run from source, the page is bundled with
 * esbuild the first time it is asked for (not when this module loads: a program or a test
 * that never serves the page pays nothing); the single-file build replaces this module with
 * the bundle's text (see `scripts/build.ts`), so the binary carries the page and needs no
 * esbuild, no file beside it, nothing from elsewhere.
 */
export interface PageAssets {
  readonly script: string
  readonly style: string
}

let assets: PageAssets | undefined

export const pageAssets = (): PageAssets =>
  assets ??= {
    script: buildSync({ ...pageBuildOptions, write: false }).outputFiles[0]!.text,
    style: readFileSync(new URL("./page/style.css", import.meta.url), "utf8")
  }
