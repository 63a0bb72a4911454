import { parseStandings } from "../protocol/summary.js"
import type { ClientExit, ClientState } from "./state.js"
import { gridArea, gridSize, neededWindow, type WindowSize, windowFits } from "./viewport.js"
import { wrap } from "../wrap.js"

const wrapCut = (text: string, width: number) => wrap(text, width, { cut: true })

/**
 * What the screen shows, as a pure function of the client state: lines of printable ASCII,
 * each with a style per character. `paint.ts` turns them into what the terminal is sent.
 */

/**
 * How a character is drawn. A letter per style, so that a line's styles are a string as
 * long as its text: cheap to compare and to slice.
 */
export const Style = {
  plain: " ",
  wall: "w",
  floor: "f",
  passage: "p",
  gold: "g",
  self: "@",
  player: "o",
  /** A note on the status line. */
  note: "n",
  /** Something to know but not to read first: the join line, the keys to press. */
  hint: "h",
  /** A heading, the winner. */
  strong: "s",
  /** The player's own line in the standings. */
  mark: "m"
} as const

export interface Line {
  readonly text: string
  /** One `Style` letter per character of `text`. */
  readonly styles: string
}

export type Screen = ReadonlyArray<Line>

/** Anything outside printable ASCII (control characters above all) becomes `?`. */
export const sanitize = (text: string): string =>
  Array.from(text, (char) => {
    const code = char.codePointAt(0)!
    return code >= 0x20 && code <= 0x7e ? char : "?"
  }).join("")

/** Sanitized, then cut or padded to exactly `width` cells. */
export const fit = (text: string, width: number): string => sanitize(text).slice(0, width).padEnd(width)

const line = (text: string, style: string = Style.plain): Line => ({ text, styles: style.repeat(text.length) })

/** Pieces of text, each in its style, cut or padded to `width`. */
const styled = (pieces: ReadonlyArray<readonly [string, string]>, width: number): Line => {
  let text = ""
  let styles = ""
  for (const [piece, style] of pieces) {
    const safe = sanitize(piece)
    text += safe
    styles += style.repeat(safe.length)
  }
  return { text: text.slice(0, width).padEnd(width), styles: styles.slice(0, width).padEnd(width, Style.plain) }
}

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

/** The spec's status line. */
export const statusLine = (state: ClientState): string => {
  const { letter, purse, remaining = "?", role } = state.report
  return role === "spectator"
    ? `Spectator: ${remaining} nuggets unclaimed.`
    : `Player ${letter ?? "?"} has ${purse} nuggets (${remaining} nuggets unclaimed).`
}

/** The status line in fewer words, longest first, for windows too narrow for the spec's own. */
const shorterStatus = (state: ClientState): ReadonlyArray<string> => {
  const { letter = "?", purse, remaining = "?", role } = state.report
  return role === "spectator"
    ? [statusLine(state), `Spectator: ${remaining} unclaimed.`, `${remaining} left`]
    : [statusLine(state), `Player ${letter}: ${purse} nuggets, ${remaining} unclaimed.`, `${letter}: ${purse}, ${remaining} left`, `${letter} ${purse}/${remaining}`]
}

/** Cuts `text` to `width` at a word's end, marking the cut with "..."; whole words only. */
const shorten = (text: string, width: number): string => {
  if (text.length <= width) return text
  if (width < 4) return ""
  const cut = text.slice(0, width - 3)
  const space = cut.lastIndexOf(" ")
  return `${space > 0 ? cut.slice(0, space) : cut}...`
}

/**
 * The status line: the spec's text on the left, as the spec writes it when it fits, in
 * fewer words when not, never cut mid-word; the note (or the hint) right of it, shortened
 * to what is left.
 */
export const statusBar = (state: ClientState, width: number): Line => {
  const status = shorterStatus(state).find((text) => text.length <= width) ?? shorterStatus(state).at(-1)!
  const room = width - status.length - 2
  const hint = state.hint.find((text) => text.length <= room)
  // What the network did stays until the server is heard again; a key clears only the note.
  const shown = state.alert ?? state.note
  const note = shown ? [shown, Style.note] as const : hint ? [hint, Style.hint] as const : undefined
  if (note === undefined) return styled([[status, Style.plain]], width)
  return styled([[status, Style.plain], ["  ", Style.plain], [shorten(sanitize(note[0]), width - status.length - 2), note[1]]], width)
}

/** The message for a window the grid does not fit: in full if it fits, else in short. */
export const tooSmallLines = (size: WindowSize, needed: WindowSize): ReadonlyArray<string> => {
  const full = wrapCut(
    `The window is too small for this game: it must be at least ${needed.columns} columns wide and ` +
      `${needed.rows} rows tall; it is ${size.columns} x ${size.rows}. ` +
      `Please enlarge it; the game appears as soon as it fits. Or press S to play in a view that scrolls.`,
    size.columns
  )
  if (full.length <= size.rows) return full
  return wrapCut(`Too small: need ${needed.columns}x${needed.rows}, have ${size.columns}x${size.rows}; S scrolls`, size.columns)
}

/** Every key the client knows, for the help overlay and for `--help`. */
export const keyHelp: ReadonlyArray<readonly [string, string]> = [
  ["h j k l", "move left, down, up, right (arrow keys too)"],
  ["y u b n", "move up-left, up-right, down-left, down-right"],
  ["H J K L Y U B N", "run that way as far as you can"],
  ["Q", "quit (Ctrl-C and Ctrl-D too)"],
  ["Ctrl-L", "ask for the view again and repaint"],
  ["Ctrl-Z", "suspend; fg comes back"],
  ["?", "this help; any key closes it"]
]

/** The help overlay: a framed box of the keys, drawn over the middle of the screen. */
const helpBox = (width: number): ReadonlyArray<Line> => {
  const rows = [["Keys", ""] as const, ...keyHelp]
  const termWidth = Math.max(...keyHelp.map(([keys]) => keys.length))
  const inner = rows.map(([keys, what]) => (what ? `${keys.padEnd(termWidth)}  ${what}` : keys))
  const boxWidth = Math.min(width, Math.max(...inner.map((text) => text.length)) + 4)
  const edge = `+${"-".repeat(boxWidth - 2)}+`
  return [
    line(edge, Style.strong),
    ...inner.map((text, i) =>
      styled([["| ", Style.strong], [text.padEnd(boxWidth - 4), i === 0 ? Style.strong : Style.plain], [" |", Style.strong]], boxWidth)
    ),
    line(edge, Style.strong)
  ]
}

/** Lays `over` on `under`, centred. */
const overlay = (under: ReadonlyArray<Line>, over: ReadonlyArray<Line>, width: number): Array<Line> => {
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

/** Exactly as many lines as the window has rows, each exactly as wide. */
export const screen = (state: ClientState): Screen => {
  const size = state.window
  const lines: Array<Line> = []
  const grid = gridSize(state)
  if (!state.report.joined) {
    lines.push(styled([[`connecting to ${state.server}...`, Style.plain]], size.columns))
  } else if (grid && !windowFits(state)) {
    lines.push(...tooSmallLines(size, neededWindow(grid)).map((text) => line(text)))
  } else {
    lines.push(statusBar(state, size.columns))
    const view = state.report.view
    if (grid && view) {
      const area = gridArea(size)
      const top = state.scroll?.top ?? 0
      const left = state.scroll?.left ?? 0
      const rows = Math.min(grid.rows - top, area.rows)
      for (let row = 0; row < rows; row++) {
        lines.push(gridLine((view[top + row] ?? "").slice(left, left + Math.min(grid.cols, size.columns)), Math.min(grid.cols - left, size.columns)))
      }
    }
  }
  const full = Array.from({ length: size.rows }, (_, row) => {
    const each = lines[row] ?? line("")
    return { text: each.text.slice(0, size.columns).padEnd(size.columns), styles: each.styles.slice(0, size.columns).padEnd(size.columns, Style.plain) }
  })
  return state.helpOpen ? overlay(full, helpBox(size.columns), size.columns) : full
}

/** The screen's text alone. */
export const screenLines = (state: ClientState): ReadonlyArray<string> => screen(state).map((each) => each.text)

/**
 * The final standings, best first: the winner (or winners, on a tie) and our own line
 * marked. A summary in a form we do not know is shown as it came.
 */
export const rankedSummary = (summary: string, me: string | undefined): ReadonlyArray<readonly [string, string]> => {
  const standings = parseStandings(summary)
  if (standings === undefined) return summary.split("\n").filter((row) => row !== "").map((row) => [sanitize(row), Style.plain])
  const ranked = standings.slice().sort((a, b) => b.purse - a.purse || a.letter.localeCompare(b.letter))
  const best = ranked[0]!.purse
  const width = Math.max(...ranked.map((each) => String(each.purse).length))
  return ranked.map((each, i) => {
    const marks = [each.purse === best ? "winner" : "", each.letter === me ? "you" : ""].filter(Boolean).join(", ")
    const text = `${String(i + 1).padStart(2)}. ${each.letter} ${String(each.purse).padStart(width)} ${sanitize(each.name)}${marks ? `  <- ${marks}` : ""}`
    return [text, each.letter === me ? Style.mark : each.purse === best ? Style.strong : Style.plain] as const
  })
}

/** The game-over screen: the standings over the final view, until a key or a few seconds. */
export const gameOverScreen = (state: ClientState, summary: string): Screen => {
  const width = state.window.columns
  const me = state.report.role === "player" ? state.report.letter : undefined
  const standings = rankedSummary(summary, me)
  const box = [
    line("GAME OVER", Style.strong),
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

/** What is printed once the screen is gone; what the server said is cut to `width` and kept printable. */
export const farewell = (exit: ClientExit, width: number): string => {
  /** What the server said, made safe for the terminal: printable ASCII, each line cut to the width. */
  const fromServer = (text: string) =>
    text.replace(/\r?\n$/, "").split("\n").map((row) => sanitize(row.replace(/\r$/, "")).slice(0, width)).join("\n")
  switch (exit._tag) {
    case "Quit":
      return exit.reason ? fromServer(exit.reason) : "The server ended the session."
    case "GameOver":
      return `GAME OVER:\n${rankedSummary(exit.summary, exit.you).map(([text]) => text.slice(0, width)).join("\n")}`
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
          return "The server did not answer; left anyway."
        case "interrupt":
          return "You left the game."
        case "end of input":
          return "End of input: you left the game."
        case "hangup":
          return ""
      }
  }
}
