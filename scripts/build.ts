/**
 * `npm run build`: bundles the CLI into one CommonJS file with esbuild, then makes it a
 * single executable (Node SEA): dist/nuggets runs with no node_modules and no network.
 * `--bundle-only` stops after the bundle (tests use it for a fast-starting CLI).
 */
import { execFileSync } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"
import { sqliteAddonAsset } from "../src/archive/addon.js"
import { lobbyPage } from "../src/lobby/pageBuild.js"
import { gamePage, type PageRecipe, pageStyle } from "../src/web/pageBuild.js"

const root = fileURLToPath(new URL("../", import.meta.url))
const require = createRequire(import.meta.url)

/** Replaces the module that reads the default map from disk with the map's text itself. */
const embedDefaultMap: esbuild.Plugin = {
  name: "embed-default-map",
  setup(build) {
    build.onLoad({ filter: /[\\/]maps[\\/]default\.ts$/ }, () => ({
      contents: `export const defaultMapText = ${JSON.stringify(readFileSync(join(root, "maps/main.txt"), "utf8"))}`,
      loader: "ts"
    }))
  }
}

/**
 * The modules that make a page from its source when first asked for (`src/web/pageAssets.ts`,
 * `src/lobby/pageAssets.ts`): the build puts the page itself, bundled now, in each one's
 * place; so do the tests, once per run (test/vitest.config.ts).
 */
type EmbeddedPage = { readonly module: RegExp; readonly name: string; readonly recipe: PageRecipe }
export const embeddedPages: ReadonlyArray<EmbeddedPage> = [
  { module: /[\\/]src[\\/]web[\\/]pageAssets\.ts$/, name: "pageAssets", recipe: gamePage },
  { module: /[\\/]src[\\/]lobby[\\/]pageAssets\.ts$/, name: "lobbyAssets", recipe: lobbyPage }
]

/** The text of a module to stand in for `page`'s: the page, bundled now. */
const pageModule = async (page: EmbeddedPage): Promise<string> => {
  const built = await esbuild.build({ ...page.recipe.build, write: false })
  const assets = { script: built.outputFiles[0]!.text, style: pageStyle(page.recipe) }
  return `const assets = ${JSON.stringify(assets)}\nexport const ${page.name} = () => assets\n`
}

/** The text to stand in for the module `file`, if it is one of `embeddedPages`. */
export const embeddedPage = (file: string): Promise<string> | undefined => {
  const page = embeddedPages.find((each) => each.module.test(file))
  return page === undefined ? undefined : pageModule(page)
}

const embedPages: esbuild.Plugin = {
  name: "embed-pages",
  setup(build) {
    for (const page of embeddedPages) build.onLoad({ filter: page.module }, async () => ({ contents: await pageModule(page), loader: "ts" }))
  }
}

/** Replaces the module that reads the host's built-in maps from disk with their texts. */
const embedHostMaps: esbuild.Plugin = {
  name: "embed-host-maps",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]host[\\/]builtInMaps\.ts$/ }, () => ({
      contents: `export const builtInMapTexts = ${
        JSON.stringify(["main", "small", "hole"].map((name) => [name, readFileSync(join(root, `maps/${name}.txt`), "utf8")]))
      }`,
      loader: "ts"
    }))
  }
}

/**
 * Libraries the bundle would carry but nuggets never calls: @effect/cli's parsers of option
 * files (YAML, TOML, INI: we take no option from a file) and the property-test generator
 * behind effect's Schema arbitraries. Each is left out for a module that says so if it is
 * ever reached. That is 190 KB of 1.2 MB less to parse when node runs the bundle (the tests,
 * `npm run bench -- --bundle`): about 4 MB less resident memory. The single executable
 * starts from its code cache and is the same either way.
 */
const leaveOut = ["yaml", "toml", "ini", "fast-check"]
const leftOut: esbuild.Plugin = {
  name: "left-out",
  setup(build) {
    build.onResolve({ filter: new RegExp(`^(${leaveOut.join("|")})$`) }, (args) => ({ path: args.path, namespace: "left-out" }))
    build.onLoad({ filter: /.*/, namespace: "left-out" }, (args) => ({
      contents: `const why = ${JSON.stringify(`${args.path} is not in this build (nuggets never uses it)`)}
module.exports = new Proxy({}, { get: (_, name) => { if (name === "__esModule") return false; throw new Error(why) } })`,
      loader: "js"
    }))
  }
}

/**
 * better-sqlite3's native addon (`better_sqlite3.node`), found as better-sqlite3 finds it
 * (the `bindings` package's search of its build folders).
 */
const sqliteAddonPath = (): string => {
  const bindings = require("bindings") as (options: { bindings: string; path: true; module_root: string }) => string
  return bindings({ bindings: sqliteAddonAsset, path: true, module_root: dirname(require.resolve("better-sqlite3/package.json")) })
}

/**
 * The archive's SQLite addon cannot be bundled, and a single executable can `require` no
 * file: better-sqlite3's own lookup (`require("bindings")(...)`) is replaced by
 * `src/archive/addon.ts`, which loads the addon from the executable's assets, or from
 * this project's node_modules when the bundle runs under node.
 */
const sqliteAddon: esbuild.Plugin = {
  name: "sqlite-addon",
  setup(build) {
    build.onResolve({ filter: /^bindings$/ }, (args) =>
      /[\\/]better-sqlite3[\\/]/.test(args.importer) ? { path: "bindings", namespace: "sqlite-addon" } : undefined)
    build.onLoad({ filter: /.*/, namespace: "sqlite-addon" }, () => ({
      contents: `const { loadSqliteAddon } = require(${JSON.stringify(join(root, "src/archive/addon.ts"))})
module.exports = () => loadSqliteAddon(${JSON.stringify(sqliteAddonPath())})`,
      loader: "js",
      resolveDir: root
    }))
  }
}

export const bundle = async (outfile: string, options: { readonly minify?: boolean } = {}): Promise<void> => {
  await esbuild.build({
    entryPoints: [join(root, "src/main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    minify: options.minify ?? true,
    legalComments: "none",
    logLevel: "warning",
    // The web's WebSocket library would look for optional native add-ons a single executable cannot load.
    define: { "process.env.WS_NO_BUFFER_UTIL": '"1"', "process.env.WS_NO_UTF_8_VALIDATE": '"1"' },
    plugins: [embedDefaultMap, embedPages, embedHostMaps, leftOut, sqliteAddon]
  })
}

/** Runs a build tool quietly; its output is shown only if it fails. */
const run = (command: string, args: ReadonlyArray<string>) => {
  try {
    execFileSync(command, args, { cwd: root, stdio: "pipe" })
  } catch (error) {
    const failed = error as { stdout?: Buffer; stderr?: Buffer }
    process.stderr.write(`${failed.stdout ?? ""}${failed.stderr ?? ""}`)
    throw error
  }
}

const strip = (file: string, ...options: ReadonlyArray<string>) => {
  try {
    run("strip", [...options, file])
  } catch {
    // No strip on this machine: the file is only larger.
  }
}

/**
 * Builds the single executable at `executable` (dist/nuggets by default), with its
 * intermediate files in `buildDir`. Tests build elsewhere: never over a binary that may be
 * running (a game being played), which the system refuses to write (ETXTBSY); and they give
 * the bundle `bundle` made for their run as `bundled`, rather than make it again.
 */
export const buildExecutable = async (
  executable: string = join(root, "dist/nuggets"),
  buildDir: string = join(root, "build"),
  options: { readonly bundled?: string } = {}
): Promise<string> => {
  mkdirSync(buildDir, { recursive: true })
  mkdirSync(dirname(executable), { recursive: true })
  const bundled = options.bundled ?? join(buildDir, "nuggets.cjs")
  if (options.bundled === undefined) await bundle(bundled)
  const blob = join(buildDir, "nuggets.blob")
  const config = join(buildDir, "sea-config.json")
  // The addon goes in as an asset, stripped of its symbol table as the executable is (2.1 MB -> 2.0 MB).
  const addon = join(buildDir, sqliteAddonAsset)
  copyFileSync(sqliteAddonPath(), addon)
  strip(addon, "--strip-unneeded")
  writeFileSync(
    config,
    JSON.stringify({
      main: bundled,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      assets: { [sqliteAddonAsset]: addon }
    })
  )
  run(process.execPath, ["--experimental-sea-config", config])
  copyFileSync(process.execPath, executable)
  chmodSync(executable, 0o755)
  strip(executable)
  run(process.execPath, [
    join(root, "node_modules/postject/dist/cli.js"),
    executable,
    "NODE_SEA_BLOB",
    blob,
    "--sentinel-fuse",
    "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2"
  ])
  return executable
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--bundle-only")) {
    await bundle(join(root, "build/nuggets.cjs"))
    console.log("built build/nuggets.cjs")
  } else {
    const started = Date.now()
    const executable = await buildExecutable()
    console.log(`built ${executable.slice(root.length)} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
}
