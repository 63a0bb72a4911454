import { nuggetCount } from "../protocol/dialect.js"
import { endOf, endTitle, nuggetsLeftAt } from "../protocol/endings.js"
import type { Role } from "../protocol/reader.js"
import type { Summary } from "../protocol/summary.js"
import { rankedSummary } from "./standings.js"
import { type KeyHelp, keyHelp, spectatorKeyHelp } from "./keymap.js"
import type { ClientExit, ClientState } from "./state.js"
import { noteForms, shorterStatus } from "./status.js"
import { gridArea, gridSize, neededWindow, type WindowSize, windowFits } from "./viewport.js"
import { wrap } from "../wrap.js"
import { fit, type Line, line, sanitize, type Screen, Style, styled } from "./style.js"

export { fit, type Line, sanitize, type Screen, Style } from "./style.js"

const wrapCut = (text: string, width: number) => wrap(text, width, { cut: true })

/**
 * What the screen shows, as a pure function of the client state: lines of printable ASCII,
 * each with a style per character. `paint.ts` turns them into what the terminal is sent.
 */

const gridStyle = (char: string): string => {
  switch (char) {
    case "@":
      return Style.self
    case "*":
      return Style.gold
    case "#":
      return Style.passage
    case ".":
      return Style.floor
    case "-":
    case "|":
    case "+":
      return Style.wall
    default:
      return char >= "A" && char <= "Z" ? Style.player : Style.plain
  }
}

const gridLine = (row: string, width: number): Line => {
  const text = fit(row, width)
  return { text, styles: Array.from(text, gridStyle).join("") }
}

/** Cuts `text` to `width` at a word's end, marking the cut with "..."; whole words only, or nothing. */
const shorten = (text: string, width: number): string => {
  if (text.length <= width) return text
  if (width < 4) return ""
  const cut = text.slice(0, width - 3)
  const space = cut.lastIndexOf(" ")
  return space > 0 ? `${cut.slice(0, space)}...` : ""
}

/** The forms of the note on the status line; none when there is no note. */
const shownNoteForms = (state: ClientState): ReadonlyArray<string> => {
  // What the network did stays until the server is heard again; a key clears only the note.
  const shown = state.alert ?? state.note
  return shown === undefined ? [] : noteForms(shown)
}

/**
 * The status line: the spec's text on the left, as the spec writes it when it fits, in
 * fewer words when not, never cut mid-word; the note (or the hint) right of it, in the
 * longest of its forms that fits: fewer words rather than a cut one.
 */
export const statusBar = (state: ClientState, width: number, forms: ReadonlyArray<string> = shownNoteForms(state)): Line => {
  // Blank until what it says is known: no "?" for a moment before OK or GOLD.
  const statuses = state.statusKnown ? shorterStatus(state.report) : [""]
  // A note may carry the server's words: made safe for the terminal.
  const notes = forms.map(sanitize)
  const fits = (status: string) => notes.some((note) => status.length + 2 + note.length <= width)
  // The spec's words when they fit; fewer when the note would not fit beside them at all.
  const longest = statuses.find((text) => text.length <= width) ?? statuses.at(-1)!
  const status = notes.length > 1 && !fits(longest) ? statuses.find((text) => text.length <= width && fits(text)) ?? longest : longest
  const room = width - status.length - 2
  // Words from the server have no shorter form: those alone are cut, at a word.
  const note = notes.find((text) => text.length <= room) ?? (notes.length === 1 ? shorten(notes[0]!, room) : undefined)
  const hint = state.hint.find((text) => text.length <= room)
  const right = note ? [note, Style.note] as const : hint ? [hint, Style.hint] as const : undefined
  if (right === undefined) return styled([[status, Style.plain]], width)
  if (status === "") return styled([right], width)
  return styled([[status, Style.plain], ["  ", Style.plain], right], width)
}

/** The message for a window the grid does not fit: in full if it fits, else in short. */
export const tooSmallLines = (size: WindowSize, needed: WindowSize, role: Role = "player"): ReadonlyArray<string> => {
  const full = wrapCut(
    `The window is too small for this game: it must be at least ${needed.columns} columns wide and ` +
      `${needed.rows} rows tall; it is ${size.columns} x ${size.rows}. ` +
      `Please enlarge it; the game appears as soon as it fits. ` +
      `Or press S to ${role === "spectator" ? "watch" : "play"} in a view that scrolls.`,
    size.columns
  )
  if (full.length <= size.rows) return full
  return wrapCut(`Too small: need ${needed.columns}x${needed.rows}, have ${size.columns}x${size.rows}; S scrolls`, size.columns)
}

/**
 * The help overlay: a framed box of the keys, drawn over the middle of the screen, its
 * descriptions wrapped at words to fit the window, its frame whole.
 */
export const helpBox = (width: number, keys: ReadonlyArray<KeyHelp>): ReadonlyArray<Line> => {
  const termWidth = Math.max(...keys.map(([term]) => term.length))
  const natural = Math.max(...keys.map(([term, what]) => term.length + 2 + what.length), termWidth + 2 + 4)
  const inner = Math.max(1, Math.min(natural, width - 4))
  const column = inner - termWidth - 2
  const rows: Array<readonly [string, string]> = [["Keys", Style.strong]]
  for (const [term, what] of keys) {
    if (column >= 12) {
      wrapCut(what, column).forEach((text, i) => rows.push([`${(i === 0 ? term : "").padEnd(termWidth)}  ${text}`, Style.plain]))
    } else {
      rows.push([term.slice(0, inner), Style.plain], ...wrapCut(what, inner - 2).map((text) => [`  ${text}`, Style.plain] as const))
    }
  }
  const boxWidth = inner + 4
  const edge = line(`+${"-".repeat(boxWidth - 2)}+`, Style.strong)
  return [
    edge,
    ...rows.map(([text, style]) => styled([["| ", Style.strong], [text.padEnd(inner), style], [" |", Style.strong]], boxWidth)),
    edge
  ]
}

/** Lays `over` on `under`, centred. */
export const overlay = (under: ReadonlyArray<Line>, over: ReadonlyArray<Line>, width: number): Array<Line> => {
  const top = Math.max(1, Math.floor((under.length - over.length) / 2))
  const result = under.slice()
  over.forEach((box, i) => {
    const row = top + i
    if (row >= result.length) return
    const left = Math.max(0, Math.floor((width - box.text.length) / 2))
    const base = result[row]!
    result[row] = {
      text: (base.text.slice(0, left) + box.text + base.text.slice(left + box.text.length)).slice(0, width),
      styles: (base.styles.slice(0, left) + box.styles + base.styles.slice(left + box.styles.length)).slice(0, width)
    }
  })
  return result
}

/**
 * Exactly as many lines as the window has rows, each exactly as wide. `note`: the forms
 * shown right of the status line, longest first, instead of the state's note (a replay's).
 */
export const screen = (state: ClientState, note?: ReadonlyArray<string>): Screen => {
  const size = state.window
  const lines: Array<Line> = []
  const grid = gridSize(state)
  if (!state.report.joined) {
    lines.push(styled([[`connecting to ${state.server}...`, Style.plain]], size.columns))
  } else if (grid && !windowFits(state)) {
    const message = tooSmallLines(size, neededWindow(grid), state.report.role)
    lines.push(...message.map((text) => line(text)))
    // How friends join (`nuggets play`) matters as much while the window is too small.
    const hint = state.hint.find((text) => text.length <= size.columns)
    if (hint !== undefined && message.length + 2 <= size.rows) lines.push(line(""), line(hint, Style.hint))
  } else {
    const mapRows: Array<Line> = []
    const view = state.report.view
    if (grid && view) {
      const area = gridArea(size)
      const top = state.scroll?.top ?? 0
      const left = state.scroll?.left ?? 0
      const rows = Math.min(grid.rows - top, area.rows)
      for (let row = 0; row < rows; row++) {
        mapRows.push(gridLine((view[top + row] ?? "").slice(left, left + Math.min(grid.cols, size.columns)), Math.min(grid.cols - left, size.columns)))
      }
    }
    // The hint (how friends join `nuggets play`) in full: on the status line if it fits there,
    // else under the map when the window has rows to spare, else on the status line in short.
    const longest = state.hint[0]
    const below = longest === undefined || statusBar(state, size.columns, []).text.includes(longest) ? [] : wrapCut(longest, size.columns)
    const spare = size.rows - 1 - mapRows.length
    const hintBelow = mapRows.length > 0 && below.length > 0 && below.length <= spare
    lines.push(statusBar(hintBelow ? { ...state, hint: [] } : state, size.columns, note), ...mapRows)
    if (hintBelow) lines.push(...(spare > below.length ? [line("")] : []), ...below.map((text) => line(text, Style.hint)))
  }
  const full = Array.from({ length: size.rows }, (_, row) => {
    const each = lines[row] ?? line("")
    return { text: each.text.slice(0, size.columns).padEnd(size.columns), styles: each.styles.slice(0, size.columns).padEnd(size.columns, Style.plain) }
  })
  const keys = state.report.role === "spectator" ? spectatorKeyHelp : keyHelp
  return state.helpOpen ? overlay(full, helpBox(size.columns, keys), size.columns) : full
}

/** The screen's text alone. */
export const screenLines = (state: ClientState): ReadonlyArray<string> => screen(state).map((each) => each.text)

/** The game-over screen: the standings over the final view, until a key or a few seconds. */
export const gameOverScreen = (state: ClientState, summary: Summary): Screen => {
  const width = state.window.columns
  const me = state.exit?._tag === "GameOver" ? state.exit.you : state.report.role === "player" ? state.report.letter : undefined
  const left = nuggetsLeftAt(summary, state.report.remaining)
  const standings = rankedSummary(summary, me, left)
  const box = [
    line(endHeading(left), Style.strong),
    line(""),
    ...standings.map(([text, style]) => line(text, style)),
    line(""),
    line("press any key", Style.hint)
  ]
  const boxWidth = Math.min(width, Math.max(...box.map((each) => each.text.length)) + 4)
  const framed = box.map((each) =>
    styled([["| ", Style.strong], [each.text.padEnd(boxWidth - 4), each.styles[0] ?? Style.plain], [" |", Style.strong]], boxWidth)
  )
  const edge = line(`+${"-".repeat(boxWidth - 2)}+`, Style.strong)
  return overlay(screen({ ...state, helpOpen: false }).slice(), [edge, ...framed, edge], width)
}

/** What heads the standings: `GAME OVER`, or `GAME STOPPED` when nuggets were left (when that is known). */
const endHeading = (nuggetsLeft: number | undefined) => endTitle(nuggetsLeft === undefined ? "over" : endOf(nuggetsLeft)).toUpperCase()

/** Words from a server as a sentence, to be followed by another: a capital first, a full stop last. */
const sentence = (text: string) => {
  const trimmed = text.trim()
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1) + (/[.!?:]$/.test(trimmed) ? "" : ".")
}

/** What is printed once the screen is gone; what the server said is cut to `width` and kept printable. */
export const farewell = (exit: ClientExit, width: number): string => {
  /** What the server said, made safe for the terminal: printable ASCII, each line cut to the width. */
  const fromServer = (text: string) =>
    text.replace(/\r?\n$/, "").split("\n").map((row) => sanitize(row.replace(/\r$/, "")).slice(0, width)).join("\n")
  const collected = "collected" in exit && exit.collected !== undefined ? ` You collected ${nuggetCount(exit.collected)}.` : ""
  switch (exit._tag) {
    case "Quit":
      return (exit.reason ? sentence(fromServer(exit.reason)) : "The server ended the session.") + collected
    case "GameOver":
      return `${endHeading(exit.nuggetsLeft)}:\n${rankedSummary(exit.summary, exit.you, exit.nuggetsLeft).map(([text]) => text.slice(0, width)).join("\n")}`
    case "Refused":
      return `the server refused to let you join${exit.reason ? `: ${fromServer(exit.reason)}` : "."}`
    case "BadGrid":
      return `the server sent a grid no map can have (${fromServer(exit.reason)}).`
    case "NoServer":
      return exit.why === "no answer"
        ? `${exit.server} — no Nuggets server answered`
        : `${exit.server} — no Nuggets server there (port unreachable)`
    case "UserQuit":
      switch (exit.how) {
        case "no answer":
          return "The server did not answer; left anyway." + collected
        case "interrupt":
          return "You left the game." + collected
        case "end of input":
          return "End of input: you left the game." + collected
        case "hangup":
          return ""
      }
  }
}
