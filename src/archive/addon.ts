import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { constants, tmpdir } from "node:os"
import { join } from "node:path"
import * as sea from "node:sea"

/**
 * better-sqlite3's native addon, for the bundle (`scripts/build.ts` puts this in the place
 * of the `bindings` lookup better-sqlite3 makes; run from source, nothing here is used).
 *
 * A single executable can load no file but its own, so the build embeds the addon as a SEA
 * asset; at the first database opened it is written to a private temporary folder (mode
 * 0700, from mkdtemp) and loaded with `process.dlopen`, Node's documented way. The file is
 * removed as soon as it is loaded: the system keeps the loaded library, so nothing is left
 * behind even after a SIGKILL. Where a loaded library cannot be removed (Windows), it goes
 * at exit. Outside a single executable (the bundle run by node, in the tests), the addon
 * is loaded from the node_modules the bundle was built from.
 */

/** The asset's key in the single executable. */
export const sqliteAddonAsset = "better_sqlite3.node"

const load = (path: string): unknown => {
  const module = { exports: {} as unknown }
  process.dlopen(module, path, constants.dlopen.RTLD_NOW)
  return module.exports
}

export const loadSqliteAddon = (builtAddon: string): unknown => {
  if (!sea.isSea()) return load(builtAddon)
  const dir = mkdtempSync(join(tmpdir(), "nuggets-sqlite-"))
  const remove = () => rmSync(dir, { recursive: true, force: true })
  try {
    const file = join(dir, sqliteAddonAsset)
    writeFileSync(file, new Uint8Array(sea.getRawAsset(sqliteAddonAsset) as ArrayBuffer), { mode: 0o500 })
    return load(file)
  } finally {
    try {
      remove()
    } catch {
      process.once("exit", () => {
        try {
          remove()
        } catch {
          // Still in use: the system's temporary folder keeps it.
        }
      })
    }
  }
}
