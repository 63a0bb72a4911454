import { Duration, Effect } from "effect"
import { execFile, spawn } from "node:child_process"
import { openTmuxControl } from "../../src/kit/check-client/tmux-control.js"
import { rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { promisify } from "node:util"
import { nuggetsCommand, projectDir } from "../cli/process.js"
import { patience } from "./fakes.js"
import { systemProgram } from "../../scripts/programs.js"

export { projectDir }

/** `nuggets` built from source (the bundle the binary is made of), run by node. */
export const nuggets: ReadonlyArray<string> = await nuggetsCommand()

const run = promisify(execFile)

let sessions = 0

/**
 * A command in a real terminal: its own tmux server (so nothing else is touched), one
 * session of the given size, the command wrapped by pane.sh, which reports exit code and tty state.
 */
export const tmuxPane = (command: ReadonlyArray<string>, size: { readonly columns: number; readonly rows: number }) =>
  Effect.gen(function*() {
    const socket = `${tmpdir()}/nuggets-test-${process.pid}-${++sessions}.tmux`
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(socket, { force: true })))
    const tmuxPath = systemProgram("tmux")
    const tmux = (...args: ReadonlyArray<string>) =>
      Effect.promise(() => run(tmuxPath, ["-S", socket, ...args], { cwd: projectDir }).then(({ stdout }) => stdout))
    yield* Effect.acquireRelease(
      tmux(
        "new-session", "-d", "-x", String(size.columns), "-y", String(size.rows), "-s", "test",
        `${projectDir}test/client/pane.sh`, ...command
      ),
      () => tmux("kill-server").pipe(Effect.catchAllDefect(() => Effect.void))
    )
    // Nothing is polled, and reading the screen or typing starts no process: one control-mode
    // client of the same tmux takes the commands and tells of every write to the pane, and a
    // wait reads the screen again at each (the kit's own way, `lookUntil`).
    const control = yield* openTmuxControl(["-S", socket], "test").pipe(Effect.orDie)
    const tmuxCommand = (...words: ReadonlyArray<string>) => control.command(...words).pipe(Effect.orDie)
    const capture = tmuxCommand("capture-pane", "-p", "-t", "test").pipe(Effect.map((text) => text.split("\n")))
    const childPid = tmuxCommand("display-message", "-p", "-t", "test", "#{pane_pid}").pipe(
      Effect.flatMap((shell) => Effect.promise(() => run("pgrep", ["-P", shell.trim()]))),
      Effect.map(({ stdout }) => Number(stdout.trim().split("\n")[0]))
    )
    return {
      capture,
      /** The screen with its colours and attributes, as escape sequences. */
      captureStyled: tmuxCommand("capture-pane", "-p", "-e", "-t", "test").pipe(Effect.map((text) => text.split("\n"))),
      /** The screen once `predicate` holds of it, read again at each write to the pane; fails with the last screen after `timeout`. */
      waitFor: (predicate: (lines: ReadonlyArray<string>) => boolean, timeout: Duration.DurationInput = patience) =>
        control.lookUntil(capture, predicate, Duration.toMillis(timeout)).pipe(
          Effect.filterOrFail(({ held }) => held, ({ seen }) => new Error(`the screen never matched; it shows:\n${seen.join("\n")}`)),
          Effect.map(({ seen }) => seen)
        ),
      /** Keys as tmux names them: "h", "C-c", "Escape"; `-l` sends text literally. */
      sendKeys: (...keys: ReadonlyArray<string>) => tmuxCommand("send-keys", "-t", "test", ...keys),
      resize: (columns: number, rows: number) =>
        tmuxCommand("resize-window", "-t", "test", "-x", String(columns), "-y", String(rows)),
      /** A tmux format about the pane, e.g. "#{alternate_on}". */
      display: (format: string) => tmuxCommand("display-message", "-p", "-t", "test", format).pipe(Effect.map((s) => s.trim())),
      /** Closes the terminal under the command, as closing its window would (SIGHUP, EIO). */
      hangUp: tmux("kill-session", "-t", "test"),
      /** The command itself: the child of pane.sh. */
      childPid,
      /** Signals the command itself. */
      signalChild: (signal: NodeJS.Signals) => childPid.pipe(Effect.flatMap((pid) => Effect.sync(() => process.kill(pid, signal))))
    }
  })

export type Pane = Effect.Effect.Success<ReturnType<typeof tmuxPane>>

/** The real `nuggets serve`, started from source; gives the port it announced. */
export const realServer = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(nuggets[0]!, [...nuggets.slice(1), "serve", ...args, "--host", "127.0.0.1", "--port", "0"], {
          cwd: projectDir,
          stdio: ["ignore", "pipe", "ignore"]
        })
      ),
      (child) => Effect.sync(() => child.kill())
    )
    const port = yield* Effect.async<number, Error>((resume) => {
      let out = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk
        const found = /^Ready to play, waiting at port (\d+)$/m.exec(out)
        if (found) resume(Effect.succeed(Number(found[1])))
      })
      child.on("exit", (code) => resume(Effect.fail(new Error(`the server exited (${code}): ${out}`))))
    }).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("the server never said it was ready") }))
    /** Kills the server as a crash would: no last words. */
    const kill = Effect.async<void>((resume) => {
      child.once("exit", () => resume(Effect.void))
      child.kill("SIGKILL")
    })
    /** Sends the server a signal: SIGSTOP freezes it as a stopped job would be, SIGCONT lets it go on. */
    const signal = (name: NodeJS.Signals) => Effect.sync(() => child.kill(name))
    return { port, kill, signal }
  })

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** `nuggets` run with pipes for stdin, stdout and stderr; `finished` is how it ended, within a deadline. */
export const spawnNuggets = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(nuggets[0]!, [...nuggets.slice(1), ...args], { cwd: projectDir })),
      (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
    )
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    return {
      child,
      finished: Effect.promise(() => exited).pipe(
        Effect.map((code): Finished => ({ code, stdout, stderr })),
        Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error(`still running; stderr: ${stderr}`) })
      )
    }
  })
