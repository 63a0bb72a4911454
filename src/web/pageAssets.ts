import { buildSync } from "esbuild"
import { readFileSync } from "node:fs"
import { lobbyBuildOptions, pageBuildOptions } from "./pageBuild.js"

/**
 * The pages' scripts and style sheets: the game's (`page/`) and the lobby's (`lobby/`). Run
 * from source, a page is bundled with esbuild the first time it is asked for (not when this
 * module loads: a program or a test that never serves it pays nothing); the single-file
 * build replaces this module with the bundles' text (see `scripts/build.ts`), so the binary
 * carries the pages and needs no esbuild, no file beside it, nothing from elsewhere.
 */
export interface PageAssets {
  readonly script: string
  readonly style: string
}

let page: PageAssets | undefined
let lobby: PageAssets | undefined

const styleOf = (file: string) => readFileSync(new URL(file, import.meta.url), "utf8")

export const pageAssets = (): PageAssets =>
  page ??= {
    script: buildSync({ ...pageBuildOptions, write: false }).outputFiles[0]!.text,
    style: styleOf("./page/style.css")
  }

/** The lobby's style is the game page's and its own: one palette. */
export const lobbyAssets = (): PageAssets =>
  lobby ??= {
    script: buildSync({ ...lobbyBuildOptions, write: false }).outputFiles[0]!.text,
    style: styleOf("./page/style.css") + styleOf("./lobby/style.css")
  }
