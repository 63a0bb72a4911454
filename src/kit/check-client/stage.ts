import { Effect, type Scope } from "effect"
import { Udp, type UdpError } from "../../net/udp.js"
import type { Dialect } from "../../protocol/dialect.js"
import { type Recorder, Stop } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import type { Requirement } from "../conformance/requirements.js"
import { openScriptServer, type ScriptServer } from "./script-server.js"
import type { TtyError } from "./tmux-control.js"
import { openTty, type Size, type Tty } from "./tty.js"

/**
 * A stage for `check client`: the scripted server, the client under check in a terminal of
 * its own, and ways to await what the client sends and shows, each with a deadline.
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

/** A fresh scripted server, and the client run against it as `name` (the spectator without), until the scope ends. */
export const openStage = (
  { options, udp }: { readonly options: ClientCheckOptions; readonly udp: Udp["Type"] },
  name: string | undefined,
  size: Size
): Effect.Effect<Stage, UdpError | TtyError, Scope.Scope> =>
  Effect.gen(function*() {
    const server = yield* openScriptServer().pipe(Effect.provideService(Udp, udp))
    const tty = yield* openTty(commandFor(options.command, server.port, name), size, options.clientLog)
    // On the way out, a client still running is told to quit, as a server would.
    yield* Effect.addFinalizer(() =>
      tty.ended.pipe(
        Effect.flatMap((ended) => (ended ? Effect.void : server.send("QUIT Thanks for playing!").pipe(Effect.zipRight(tty.untilEnded(2000))))),
        Effect.ignore
      )
    )
    return { server, tty }
  })

/** Words a client uses to say its window is too small, in any of the ways CS50 clients put it. */
const sizeWords = /too\s+(small|narrow|short)|enlarge|resiz|larger|bigger|window|terminal|screen\s+(size|width|height)|width|height|columns|rows|adjust/i

/**
 * The screen as text, as a client wrote it: a row as wide as the window runs on into the next
 * (words wrap there, mid-word too), and other rows end at a space.
 */
export const screenText = (lines: ReadonlyArray<string>, columns: number): string =>
  lines.map((line) => (line.length >= columns ? line : `${line} `)).join("").replace(/\s+/g, " ").trim()

/** What the screen says of the window being too small, read as text (a complaint may wrap over rows), if it says so. */
export const complaint = (lines: ReadonlyArray<string>, columns: number): string | undefined => {
  const text = screenText(lines, columns)
  return sizeWords.test(text) ? text : undefined
}

/**
 * Waits for the game to be drawn (the grid, wherever it is on the screen), or for the client
 * to say its window is too small; which it was, and the screen.
 */
export const awaitGame = (stage: Stage, rows: ReadonlyArray<string>, ms: number) => {
  const columns = stage.tty.size().columns
  return stage.tty.screenWhen(ms, (lines) => gridAt(lines, rows) !== undefined || complaint(lines, columns) !== undefined).pipe(
    Effect.map(({ lines }) => {
      const drawn = gridAt(lines, rows) !== undefined
      return { lines, drawn, complaint: drawn ? undefined : complaint(lines, columns) }
    })
  )
}

/** A window of 80 x 24 is large enough for the grid the checker sends: a client that says otherwise reads GRID wrong. */
export const sizeComplaint = (said: string, screen: ReadonlyArray<string>, size: Size, grid: { readonly rows: number; readonly cols: number }) => {
  const numbers = (screen.join(" ").match(/\d+/g) ?? []).map(Number)
  // Asking for columns + 1 rows, or the rows as columns: GRID's numbers read the other way round.
  const swapped = numbers.includes(grid.cols + 1) || (numbers.includes(grid.rows) && numbers.includes(grid.cols + 1))
  return `in a window of ${size.columns} x ${size.rows}, larger than GRID ${grid.rows} ${grid.cols} needs (${grid.cols} x ${grid.rows + 1}), the client says it is too small: ${escaped(said.trim(), 100)}` +
    (swapped ? `; it asks for ${grid.cols + 1} rows: it seems to read GRID's numbers as columns, then rows` : "")
}

/** The status line says `sentence` first (blanks before it allowed). */
export const statusSays = (lines: ReadonlyArray<string>, sentence: string) => (lines[0] ?? "").trimStart().startsWith(sentence)

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

/**
 * Where the grid is on the screen, found by its content: its rows one under another, from
 * any row and column, with nothing left of them. Where it is drawn is map-drawn's to judge;
 * the other checks find it wherever it is (under a status line of two rows, say).
 */
export const gridAt = (lines: ReadonlyArray<string>, rows: ReadonlyArray<string>): { readonly row: number; readonly col: number } | undefined => {
  const first = rows[0]?.trimEnd() ?? ""
  for (let top = 0; top + rows.length <= lines.length; top++) {
    const col = (lines[top] ?? "").indexOf(first)
    if (col === -1) continue
    const fits = rows.every((each, index) => {
      const line = lines[top + index] ?? ""
      return line.slice(0, col).trim() === "" && line.slice(col).trimEnd() === each.trimEnd()
    })
    if (fits) return { row: top, col }
  }
  return undefined
}

/** What the screen shows above the grid (found by its content): the status line, on one row or more; the top row when the grid is not found. */
export const aboveGrid = (lines: ReadonlyArray<string>, rows: ReadonlyArray<string>): string => {
  const at = gridAt(lines, rows)
  return (at === undefined ? lines.slice(0, 1) : lines.slice(0, at.row)).map((line) => line.trim()).filter(Boolean).join(" ")
}

/** Whether `status` shows a player's purse and the nuggets left, in any words: the two numbers, in that order. */
export const showsPurse = (status: string, purse: number, left: number) => new RegExp(`\\b${purse}\\b.*\\b${left}\\b`).test(status)

/** Where the grid's first wall row is on the screen, if anywhere. */
export const findGrid = (lines: ReadonlyArray<string>, rows: ReadonlyArray<string>) => {
  const top = rows[0] ?? ""
  const first = top.trim()
  const at = lines.findIndex((line) => line.includes(first))
  return at === -1 ? undefined : { row: at, col: (lines[at] ?? "").indexOf(first) - top.indexOf(first) }
}

/**
 * How long a client just started has to send its PLAY or SPECTATE: its start is not what is
 * checked (an interpreter under load can take seconds to load a program), so never less than 5 s.
 */
export const startMs = (options: ClientCheckOptions) => Math.max(options.answerMs, 5000)

/** What the client sent, awaited for `ms`; a silence stops the check. */
export const awaitSent = (stage: Stage, what: string, spec: Requirement, wanted: (text: string) => boolean, ms: number, sent?: string) =>
  stage.server.next(what, ms, wanted).pipe(
    Effect.map((heard) => heard.text),
    Effect.mapError((silence) =>
      new Stop({
        what: `the client did not send ${what}`,
        ...(sent === undefined ? {} : { sent }),
        got: silence.instead.length === 0 ? `nothing within ${silence.ms} ms` : silence.instead.join(", "),
        spec
      })
    )
  )

/** What the client sent, awaited (an answer's time, or `ms`); a silence becomes a failure of the check, and undefined. */
export const expectSent = (
  context: Recorder & { readonly options: ClientCheckOptions },
  stage: Stage,
  what: string,
  spec: Requirement,
  wanted: (text: string) => boolean,
  sent?: string,
  ms = context.options.answerMs
) =>
  awaitSent(stage, what, spec, wanted, ms, sent).pipe(
    Effect.catchAll((error) => Effect.sync(() => (context.fail(error.failure), undefined)))
  )

/** Checks that the client ended as told: soon, with status 0, and the terminal as it found it. */
export const expectExit = (context: Recorder, stage: Stage, sent: string, spec: Requirement, ms: number, wantZero = true) =>
  Effect.gen(function*() {
    const ended = yield* stage.tty.untilEnded(ms)
    const lines = yield* stage.tty.screen
    if (!ended) {
      context.fail({ what: `the client did not exit within ${ms / 1000} s`, sent, got: shown(lines), spec })
      return undefined
    }
    if (wantZero && ended.code !== 0) context.fail({ what: `the client exited with status ${ended.code}, not 0`, sent, got: shown(lines), spec })
    const left = [
      ended.modesRestored
        ? ""
        : `the terminal's modes (stty -g) changed from ${ended.modesChanged?.before} to ${ended.modesChanged?.after}`,
      ended.mainScreen ? "" : "the alternate screen still on",
      ended.cursorShown ? "" : "the cursor hidden"
    ].filter(Boolean)
    if (left.length > 0) context.fail({ what: `the terminal was not restored: ${left.join(", ")}`, sent, got: shown(lines), spec })
    return { ended, lines }
  })
