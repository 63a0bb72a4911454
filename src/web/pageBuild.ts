import { type BuildOptions, buildSync } from "esbuild"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/**
 * How a page is made from its source, for a run from source and for the single file
 * alike: its script bundled for browsers by esbuild, and its style sheets. Only the
 * modules that stand in for a page's text (`pageAssets.ts`) and the build read this.
 */

/** A page's script and style sheet, ready to be put inline. */
export interface PageAssets {
  readonly script: string
  readonly style: string
}

/** What a page is made of: its script's entry, and its style sheets in order. */
export interface PageRecipe {
  readonly build: BuildOptions
  readonly styles: ReadonlyArray<string>
}

/** The recipe of a page from its files, each named beside the module that names them (`new URL("./x", import.meta.url)`). */
export const pageRecipe = (entry: URL, styles: ReadonlyArray<URL>): PageRecipe => ({
  build: {
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    logLevel: "warning"
  },
  styles: styles.map((style) => fileURLToPath(style))
})

/** The page's style: its sheets, one after the other. */
export const pageStyle = (recipe: PageRecipe): string => recipe.styles.map((file) => readFileSync(file, "utf8")).join("")

/** A page made now from its source (esbuild's synchronous API: a process of its own each time). */
export const pageFromSource = (recipe: PageRecipe): PageAssets => ({
  script: buildSync({ ...recipe.build, write: false }).outputFiles[0]!.text,
  style: pageStyle(recipe)
})

/** The game's page (`page/`). */
export const gamePage = pageRecipe(new URL("./page/main.ts", import.meta.url), [new URL("./page/style.css", import.meta.url)])
