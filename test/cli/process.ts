import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"
import { inject } from "vitest"
import { bundle } from "../../scripts/build.js"
import { Inbox } from "../inbox.js"

export const projectDir = fileURLToPath(new URL("../../", import.meta.url))

/** A file's path in a folder of this worker's own, removed when the worker exits. */
/**
 * A file of this worker's, in the run's own folder (global-setup.ts removes it when the run
 * ends: vitest ends its workers without their "exit"), or, run without that setup, in one
 * removed at this process's exit.
 */
const workerFile = (prefix: string, name: string): string => {
  const runDir = inject("runDir") as string | undefined
  const dir = mkdtempSync(join(runDir ?? tmpdir(), prefix))
  if (runDir === undefined) process.once("exit", () => rmSync(dir, { recursive: true, force: true }))
  return join(dir, name)
}

let bundled: Promise<ReadonlyArray<string>> | undefined
const launcher = fileURLToPath(new URL("./launch.cjs", import.meta.url))

/**
 * The `nuggets` command built from source: the same esbuild bundle the binary is made
 * from, run by node; it starts far faster than tsx. `npm test` builds it once for the whole
 * run (global-setup.ts); a run without that setup builds it once per worker.
 */
export const nuggetsCommand = (): Promise<ReadonlyArray<string>> =>
  bundled ??= (async () => {
    const shared = inject("nuggetsBundle")
    if (shared !== undefined) return [process.execPath, launcher, shared]
    const file = workerFile("nuggets-test-", "nuggets.cjs")
    await bundle(file)
    return [process.execPath, file]
  })()

const scripts = new Map<string, Promise<ReadonlyArray<string>>>()

/**
 * A test's own program (`test/...ts`), bundled once per worker and run by node: tsx would
 * compile it and its imports again at each start, a second and more of CPU each time.
 */
export const scriptCommand = (entry: string): Promise<ReadonlyArray<string>> => {
  const made = scripts.get(entry) ?? (async () => {
    const outfile = workerFile("nuggets-script-", "script.cjs")
    await esbuild.build({ entryPoints: [join(projectDir, entry)], outfile, bundle: true, platform: "node", target: "node20", format: "cjs", logLevel: "warning" })
    return [process.execPath, outfile]
  })()
  scripts.set(entry, made)
  return made
}

/** A running program whose stdout lines can be awaited with a deadline. */
export class Program {
  private readonly lines = new Inbox<string>("stdout")
  private readonly errorLines = new Inbox<string>("stderr")
  /** Every line written to stdout so far. */
  readonly stdout = this.lines.all
  stderr = ""
  readonly exited: Promise<number | null>
  private partial = ""
  private errorPartial = ""

  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      const lines = (this.partial + chunk).split("\n")
      this.partial = lines.pop()!
      for (const line of lines) this.lines.push(line)
    })
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk
      const lines = (this.errorPartial + chunk).split("\n")
      this.errorPartial = lines.pop()!
      for (const line of lines) this.errorLines.push(line)
    })
    this.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(signal ? null : code)))
  }

  static start(command: ReadonlyArray<string>, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Program {
    const [file, ...args] = command
    return new Program(spawn(file!, args, { cwd: options.cwd ?? projectDir, env: options.env ?? process.env }))
  }

  /** The first stdout line matching `pattern` (already written, or awaited at most `timeoutMs`). */
  async line(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const found = this.stdout.find((line) => pattern.test(line))
    if (found !== undefined) return found
    return this.lines.nextWhere((line) => pattern.test(line), timeoutMs).catch(() => {
      throw new Error(`no line matching ${pattern}; stdout ${JSON.stringify(this.stdout)}, stderr ${this.stderr}`)
    })
  }

  /** The first stderr line (the log, say) matching `pattern`, already written or awaited at most `timeoutMs`. */
  async errorLine(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const found = this.errorLines.all.find((line) => pattern.test(line))
    if (found !== undefined) return found
    return this.errorLines.nextWhere((line) => pattern.test(line), timeoutMs).catch(() => {
      throw new Error(`no stderr line matching ${pattern}; stderr ${this.stderr}`)
    })
  }

  /** Waits for the exit code, killing the program if it takes longer than `timeoutMs`. */
  async exitCode(timeoutMs = 15_000): Promise<number | null> {
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs)
    const code = await this.exited
    clearTimeout(timer)
    return code
  }
}

/** Runs to completion and returns the exit code and output. */
export const run = async (command: ReadonlyArray<string>, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) => {
  const program = Program.start(command, options)
  const code = await program.exitCode()
  return { code, stdout: program.stdout.join("\n"), stderr: program.stderr }
}
