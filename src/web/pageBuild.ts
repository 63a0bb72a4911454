import type { BuildOptions } from "esbuild"
import { fileURLToPath } from "node:url"

/** How the page's script is bundled for browsers, from source or for the single file: one way. */
export const pageBuildOptions = {
  entryPoints: [fileURLToPath(new URL("./page/main.ts", import.meta.url))],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2020",
  minify: true,
  legalComments: "none",
  logLevel: "warning"
} satisfies BuildOptions
