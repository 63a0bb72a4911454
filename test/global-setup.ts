import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import Module from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Script } from "node:vm"
import type { TestProject } from "vitest/node"
import { bundle } from "../scripts/build.js"
import { startPostgres } from "./postgres.js"

/**
 * Once per run, before any worker starts: the `nuggets` bundle every test that runs the
 * command shares (test/cli/process.ts), and its V8 code cache (test/cli/launch.cjs); and a
 * PostgreSQL server (test/postgres.ts). Both are removed when the run ends.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "nuggets-test-"))
  const file = join(dir, "nuggets.cjs")
  // The run's PostgreSQL starts while the bundle is made: each test file that needs it makes a database of its own.
  const [postgres] = await Promise.all([startPostgres(), bundle(file)])
  project.provide("postgresUrl", postgres.url)
  // Compiled once here, before it runs (a cache made after would carry the flags main.ts sets, and be refused).
  writeFileSync(`${file}.v8`, new Script(Module.wrap(readFileSync(file, "utf8")), { filename: file }).createCachedData())
  project.provide("nuggetsBundle", file)
  project.provide("runDir", dir)
  return () => {
    postgres.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The `nuggets` bundle built for this run. */
    nuggetsBundle: string
    /** The run's own folder, removed when it ends: the workers' files go there. */
    runDir: string
    /** The run's PostgreSQL server (`postgres://postgres@127.0.0.1:PORT/postgres`): see `test/postgres.ts`. */
    postgresUrl: string
  }
}
