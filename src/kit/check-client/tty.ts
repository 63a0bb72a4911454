import { Effect, Queue, type Scope } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { openTmuxControl, runTmux, type TtyError } from "./tmux-control.js"

/**
 * A real terminal the checker owns, for a client under check: its own tmux server (nothing
 * else is touched), one pane of a given size with no status bar, the client run in it by a
 * small shell wrapper that notes its exit status and whether the terminal's modes came
 * back. The screen is read as text; keys are typed literally. The terminal stays after the
 * client exits, as it left it, so what it printed last can still be read.
 *
 * Nothing is polled: a control-mode client of the same tmux (`tmux -C`) tells of every byte
 * the client writes, and the wrapper signals (`tmux wait-for`) when the client has ended; a
 * wait reads the screen again at each, until what it awaits is there or its time is up.
 */

export interface Size {
  readonly columns: number
  readonly rows: number
}

/** How the client ended, once it has. */
export interface Ended {
  /** Its exit status (128 + n for signal n). */
  readonly code: number
  /** The terminal's modes (stty) as they were before it started. */
  readonly modesRestored: boolean
  /** If not restored: `stty -g` before the client and after it. */
  readonly modesChanged?: { readonly before: string; readonly after: string }
  /** Not left in the alternate screen. */
  readonly mainScreen: boolean
  /** The cursor shown again. */
  readonly cursorShown: boolean
}

export interface Tty {
  /** The screen as lines of text, trailing blanks trimmed. */
  readonly screen: Effect.Effect<ReadonlyArray<string>>
  /** The terminal's size now: as opened, or as last resized. */
  readonly size: () => Size
  /** Types text, each character a key. */
  readonly type: (keys: string) => Effect.Effect<void>
  /** Presses a key by tmux's name for it: Enter, C-c. */
  readonly press: (key: string) => Effect.Effect<void>
  readonly resize: (size: Size) => Effect.Effect<void>
  /** How it ended, or undefined while it runs. */
  readonly ended: Effect.Effect<Ended | undefined>
  /** The screen as soon as `wanted` holds of it, or as it is when `ms` have passed or the client has ended. */
  readonly screenWhen: (ms: number, wanted: (lines: ReadonlyArray<string>) => boolean) => Effect.Effect<{ readonly lines: ReadonlyArray<string>; readonly ok: boolean }>
  /** How the client ended, once it has, or undefined when it still runs after `ms`. */
  readonly untilEnded: (ms: number) => Effect.Effect<Ended | undefined>
}

/**
 * Runs the command with its stderr (its log, as the spec has it) in a file, notes its status
 * and whether `stty -g` is the same after as before (written whole, then renamed: the checker
 * reads the note as soon as it is there), then stays, printing nothing: the terminal keeps
 * what the client left, cursor and all.
 */
const wrapper = `status=$1; log=$2; shift 2
before=$(stty -g 2>/dev/null)
"$@" 2>>"$log"
code=$?
after=$(stty -g 2>/dev/null)
if [ "$before" = "$after" ]; then modes=same; else modes="changed $before $after"; fi
printf '%s %s\\n' "$code" "$modes" > "$status.part" && mv "$status.part" "$status"
tmux wait-for -S ended 2>/dev/null
exec sleep 86400`

/** Whether tmux can be run here. */
export const tmuxAvailable: Effect.Effect<void, TtyError> = runTmux(["-V"]).pipe(Effect.asVoid)

/**
 * `command` in a new terminal of `size`, its stderr added to `log` (a file of the terminal's
 * own unless given); closed (the client killed) when the scope ends.
 */
export const openTty = (command: ReadonlyArray<string>, size: Size, log?: string): Effect.Effect<Tty, TtyError, Scope.Scope> =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "nuggets-check-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const socket = join(dir, "tmux")
    const config = join(dir, "tmux.conf")
    const status = join(dir, "status")
    writeFileSync(config, "set -g status off\nset -g default-terminal screen\n")
    const serverArgs = ["-S", socket, "-f", config]
    yield* Effect.acquireRelease(
      runTmux([...serverArgs, "new-session", "-d", "-s", "check", "-x", String(size.columns), "-y", String(size.rows), "sh", "-c", wrapper, "sh", status, log ?? join(dir, "stderr"), ...command]),
      () => runTmux([...serverArgs, "kill-server"]).pipe(Effect.ignore)
    )
    // One control client reads the screen and types, and tells of each write to the pane.
    const control = yield* openTmuxControl(serverArgs, "check")
    const tmux = control.command
    const format = (what: string) => tmux("display-message", "-p", "-t", "check", what).pipe(Effect.map((text) => text.trim()), Effect.orDie)
    // A wait reads again when the client writes (the control client says so) or ends (this says so).
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const started = spawn("tmux", [...serverArgs, "wait-for", "ended"], { stdio: ["ignore", "ignore", "ignore"] })
        const wake = () => void Queue.unsafeOffer(control.writes, undefined)
        started.on("exit", wake)
        started.on("error", wake)
        return started
      }),
      (started) => Effect.sync(() => void started.kill())
    )
    const screen = tmux("capture-pane", "-p", "-t", "check").pipe(
      Effect.map((text) => text.replace(/\n$/, "").split("\n").map((line) => line.trimEnd())),
      Effect.orDie
    )
    const ended: Tty["ended"] = Effect.gen(function*() {
      let noted: string
      try {
        noted = readFileSync(status, "utf8")
      } catch {
        return undefined
      }
      const [code, modes, before, after] = noted.trim().split(" ")
      return {
        code: Number(code),
        modesRestored: modes === "same",
        ...(modes === "same" ? {} : { modesChanged: { before: before ?? "", after: after ?? "" } }),
        mainScreen: (yield* format("#{alternate_on}")) !== "1",
        cursorShown: (yield* format("#{cursor_flag}")) === "1"
      }
    })
    // Once the client has ended, nothing writes to the screen any more.
    const hasEnded = () => existsSync(status)
    let current = size
    return {
      screen,
      size: () => current,
      screenWhen: (ms, wanted) =>
        control.lookUntil(screen, (lines) => wanted(lines) || hasEnded(), ms).pipe(Effect.map(({ seen }) => ({ lines: seen, ok: wanted(seen) }))),
      untilEnded: (ms) => control.lookUntil(ended, (each) => each !== undefined, ms).pipe(Effect.map(({ seen }) => seen)),
      // As bytes (-H), so that no character of what is typed means anything to tmux's command line.
      type: (keys) => tmux("send-keys", "-t", "check", "-H", ...Array.from(Buffer.from(keys, "utf8"), (byte) => byte.toString(16).padStart(2, "0"))).pipe(Effect.asVoid, Effect.orDie),
      press: (key) => tmux("send-keys", "-t", "check", key).pipe(Effect.asVoid, Effect.orDie),
      resize: (to) =>
        tmux("resize-window", "-t", "check", "-x", String(to.columns), "-y", String(to.rows)).pipe(
          Effect.tap(() => void (current = to)),
          Effect.asVoid,
          Effect.orDie
        ),
      ended
    }
  })
