import { gamePage, type PageAssets, pageFromSource } from "./pageBuild.js"

/**
 * The game's page (`page/`). Run from source, it is bundled with esbuild the first time it
 * is asked for (not when this module loads: a program or a test that never serves it pays
 * nothing); the single-file build puts the page's text in this module's place (see
 * `scripts/build.ts`), so the binary carries the page and needs no esbuild, no file beside
 * it, nothing from elsewhere.
 */
let page: PageAssets | undefined

export const pageAssets = (): PageAssets => page ??= pageFromSource(gamePage)
