import type { BuildOptions } from "esbuild"
import { fileURLToPath } from "node:url"

/** How a page's script is bundled for browsers, from source or for the single file: one way. */
const bundled = (entry: string) => ({
  entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2020",
  minify: true,
  legalComments: "none",
  logLevel: "warning"
}) satisfies BuildOptions

/** The game's page (`page/`). */
export const pageBuildOptions = bundled("./page/main.ts")

/** The lobby of `nuggets host` (`lobby/`). */
export const lobbyBuildOptions = bundled("./lobby/main.ts")
