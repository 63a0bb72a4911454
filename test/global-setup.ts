import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { bundle } from "../scripts/build.js"

/**
 * Once per run, before any worker starts: the `nuggets` bundle every test that runs the
 * command shares (test/cli/process.ts), removed when the run ends.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "nuggets-test-"))
  const file = join(dir, "nuggets.cjs")
  await bundle(file)
  project.provide("nuggetsBundle", file)
  return () => rmSync(dir, { recursive: true, force: true })
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The `nuggets` bundle built for this run. */
    nuggetsBundle: string
  }
}
