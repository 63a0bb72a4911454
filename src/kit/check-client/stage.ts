import { Effect, type Scope } from "effect"
import type { Dialect } from "../../protocol/dialect.js"
import type { Udp, UdpError } from "../../net/udp.js"
import { escaped } from "../conformance/lint.js"
import type { Failure } from "../conformance/report.js"
import { openScriptServer, type ScriptServer } from "./script-server.js"
import { Stop } from "../check-server/session.js"
import { type SpecLine } from "../conformance/requirements.js"
import { type Ended, openTty, type Size, type Tty, type TtyError } from "./tty.js"

/**
 * A stage for one scenario of `check client`: the scripted server, the client under check
 * in a terminal of its own, and ways to wait for what the client sends and shows.
 */

export interface ClientCheckOptions {
  /** The client's command; HOST PORT [NAME] are added, or put where {host} {port} {name} stand. */
  readonly command: ReadonlyArray<string>
  readonly dialect: Dialect
  /** How long to wait for each thing the client should do. */
  readonly answerMs: number
  /** Where the client's stderr goes (added to the end); a file of the checker's own, thrown away, unless given. */
  readonly clientLog?: string
}

export interface Stage {
  readonly server: ScriptServer
  readonly tty: Tty
  readonly options: ClientCheckOptions
  /** Records a failure of `check` and goes on. */
  readonly fail: (check: string, failure: Failure) => void
  readonly note: (check: string, text: string) => void
}

/** The client's command line for this server: placeholders filled, or HOST PORT [NAME] added. */
export const commandFor = (command: ReadonlyArray<string>, port: number, name: string | undefined): ReadonlyArray<string> =>
  command.some((word) => /\{(host|port|name)\}/.test(word))
    ? command.flatMap((word) =>
      word === "{name}" && name === undefined
        ? []
        : [word.replaceAll("{host}", "127.0.0.1").replaceAll("{port}", String(port)).replaceAll("{name}", name ?? "")]
    )
    : [...command, "127.0.0.1", String(port), ...(name === undefined ? [] : [name])]

/** A terminal larger than any grid the checker serves. */
export const roomySize: Size = { columns: 80, rows: 24 }

export const openStage = (
  options: ClientCheckOptions,
  name: string | undefined,
  size: Size,
  fail: Stage["fail"],
  note: Stage["note"]
): Effect.Effect<Stage, UdpError | TtyError, Scope.Scope | Udp> =>
  Effect.gen(function*() {
    const server = yield* openScriptServer()
    const tty = yield* openTty(commandFor(options.command, server.port, name), size, options.clientLog)
    // On the way out, a client still running is told to quit, as a server would.
    yield* Effect.addFinalizer(() =>
      tty.ended.pipe(
        Effect.flatMap((ended) => (ended ? Effect.void : server.send("QUIT Thanks for playing!").pipe(Effect.zipRight(untilEnded(tty, 2000))))),
        Effect.ignore
      )
    )
    return { server, tty, options, fail, note }
  })

/** The screen, as soon as `wanted` holds of it, or as it is when `ms` have passed. */
export const screenWhen = (tty: Tty, ms: number, wanted: (lines: ReadonlyArray<string>) => boolean) =>
  Effect.gen(function*() {
    const deadline = performance.now() + ms
    for (;;) {
      const lines = yield* tty.screen
      if (wanted(lines) || performance.now() >= deadline) return { lines, ok: wanted(lines) }
      yield* Effect.sleep("50 millis")
    }
  })

/** How the client ended, once it has, or undefined when it still runs after `ms`. */
export const untilEnded = (tty: Tty, ms: number): Effect.Effect<Ended | undefined> =>
  Effect.gen(function*() {
    const deadline = performance.now() + ms
    for (;;) {
      const ended = yield* tty.ended
      if (ended || performance.now() >= deadline) return ended
      yield* Effect.sleep("50 millis")
    }
  })

/** A screen row as a report shows it. */
export const row = (lines: ReadonlyArray<string>, index: number) => `screen row ${index}: ${escaped(lines[index] ?? "", 90)}`

/** The rows of the screen that are not blank, for a report. */
export const shown = (lines: ReadonlyArray<string>) => {
  const text = lines.filter((line) => line.trim() !== "").join(" / ")
  return text === "" ? "a blank screen" : `the screen: ${escaped(text, 160)}`
}

/** Whether `rows` are drawn under the status line, from row 1, column 0. */
export const drawnAt = (lines: ReadonlyArray<string>, rows: ReadonlyArray<string>, top = 1) =>
  rows.every((each, index) => (lines[top + index] ?? "").trimEnd() === each.trimEnd())

/** Where the grid's first wall row is on the screen, if anywhere. */
export const findGrid = (lines: ReadonlyArray<string>, rows: ReadonlyArray<string>) => {
  const first = rows[0]!.trim()
  const at = lines.findIndex((line) => line.includes(first))
  return at === -1 ? undefined : { row: at, col: lines[at]!.indexOf(first) - rows[0]!.indexOf(first) }
}

/**
 * How long a client just started has to send its PLAY or SPECTATE: its start is not what is
 * checked (an interpreter under load can take seconds to load a program), so never less than 5 s.
 */
export const startMs = (stage: Stage) => Math.max(stage.options.answerMs, 5000)

/** What the client sent, awaited (an answer's time, or `ms`); a silence becomes the check's failure. */
export const expectSent = (
  stage: Stage,
  check: string,
  what: string,
  spec: SpecLine,
  wanted: (text: string) => boolean,
  sent?: string,
  ms = stage.options.answerMs
) =>
  stage.server.next(what, ms, wanted).pipe(
    Effect.map((heard) => heard.text),
    Effect.catchTag("Silence", (silence) =>
      Effect.sync(() => {
        stage.fail(check, {
          what: `the client did not send ${what}`,
          ...(sent === undefined ? {} : { sent }),
          got: silence.instead.length === 0 ? `nothing within ${silence.ms} ms` : silence.instead.join(", "),
          spec
        })
        return undefined
      }))
  )

/** Checks that the client ended as told: soon, with status 0, and the terminal as it found it. */
export const expectExit = (stage: Stage, check: string, sent: string, spec: SpecLine, ms: number, wantZero = true) =>
  Effect.gen(function*() {
    const ended = yield* untilEnded(stage.tty, ms)
    const lines = yield* stage.tty.screen
    if (!ended) {
      stage.fail(check, { what: `the client did not exit within ${ms / 1000} s`, sent, got: shown(lines), spec })
      return undefined
    }
    if (wantZero && ended.code !== 0) stage.fail(check, { what: `the client exited with status ${ended.code}, not 0`, sent, got: shown(lines), spec })
    const left = [
      ended.modesRestored
        ? ""
        : `the terminal's modes (stty -g) changed from ${ended.modesChanged?.before} to ${ended.modesChanged?.after}`,
      ended.mainScreen ? "" : "the alternate screen still on",
      ended.cursorShown ? "" : "the cursor hidden"
    ].filter(Boolean)
    if (left.length > 0) stage.fail(check, { what: `the terminal was not restored: ${left.join(", ")}`, sent, got: shown(lines), spec })
    return { ended, lines }
  })

export { Stop }
