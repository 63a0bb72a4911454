import { cursorTo, eraseScreen } from "ansi-escapes"
import { type ClientExit, type ClientState, gridSize, neededWindow, type WindowSize, windowFits } from "./state.js"

/** What the screen shows, as a pure function of the client state and the window size. */

/** Anything outside printable ASCII (control characters above all) becomes `?`. */
export const sanitize = (text: string): string =>
  Array.from(text, (char) => {
    const code = char.codePointAt(0)!
    return code >= 0x20 && code <= 0x7e ? char : "?"
  }).join("")

/** Sanitized, then cut or padded to exactly `width` cells. */
export const fit = (text: string, width: number): string => sanitize(text).slice(0, width).padEnd(width)

export const statusLine = (state: ClientState): string => {
  const { letter, purse, remaining = "?", role } = state.report
  return role === "spectator"
    ? `Spectator: ${remaining} nuggets unclaimed.`
    : `Player ${letter ?? "?"} has ${purse} nuggets (${remaining} nuggets unclaimed).`
}

/** Greedy word wrap; a word longer than the width is cut. */
export const wrap = (text: string, width: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/ +/)) {
    const candidate = line === "" ? word : `${line} ${word}`
    if (candidate.length <= width) {
      line = candidate
    } else {
      if (line !== "") lines.push(line)
      line = word.slice(0, width)
    }
  }
  if (line !== "") lines.push(line)
  return lines
}

/** The message for a window the grid does not fit: in full if it fits, else in short. */
export const tooSmallLines = (size: WindowSize, needed: WindowSize): ReadonlyArray<string> => {
  const full = wrap(
    `The window is too small for this game: it must be at least ${needed.columns} columns wide and ` +
      `${needed.rows} rows tall; it is ${size.columns} x ${size.rows}. ` +
      `Please enlarge it; the game appears as soon as it fits.`,
    size.columns
  )
  if (full.length <= size.rows) return full
  return wrap(`Too small: need ${needed.columns}x${needed.rows}, have ${size.columns}x${size.rows}`, size.columns)
}

/** Exactly as many lines as the window has rows, each exactly as wide, of printable ASCII. */
export const screenLines = (state: ClientState): ReadonlyArray<string> => {
  const size = state.window
  const lines: Array<string> = []
  const grid = gridSize(state)
  if (!state.report.joined) {
    lines.push(`connecting to ${state.server}...`)
  } else if (grid && !windowFits(state)) {
    lines.push(...tooSmallLines(size, neededWindow(grid)))
  } else {
    const status = statusLine(state)
    lines.push(state.note ? `${status}  ${state.note}` : status)
    const view = state.report.view
    if (grid && view) {
      for (let row = 0; row < grid.rows; row++) lines.push(fit(view[row] ?? "", grid.cols))
    }
  }
  return Array.from({ length: size.rows }, (_, row) => fit(lines[row] ?? "", size.columns))
}

/**
 * The bytes that turn the frame `previous` (as last drawn) into `next`: only the changed
 * span of each changed line is written. With no previous frame of the same size, all of it.
 */
export const frameDiff = (previous: ReadonlyArray<string> | undefined, next: ReadonlyArray<string>): string => {
  const full = previous === undefined || previous.length !== next.length ||
    previous.some((line, row) => line.length !== next[row]!.length)
  let out = full ? cursorTo(0, 0) + eraseScreen : ""
  next.forEach((line, row) => {
    // An erased screen is all blanks.
    const before = full ? " ".repeat(line.length) : previous[row]!
    if (before === line) return
    let first = 0
    let last = line.length - 1
    while (first <= last && before[first] === line[first]) first++
    while (last >= first && before[last] === line[last]) last--
    if (first <= last) out += cursorTo(first, row) + line.slice(first, last + 1)
  })
  return out
}

/** What is printed once the screen is gone; what the server said is cut to `width` and kept printable. */
export const farewell = (exit: ClientExit, width: number): string => {
  /** What the server said, made safe for the terminal: printable ASCII, each line cut to the width. */
  const fromServer = (text: string) =>
    text.replace(/\r?\n$/, "").split("\n").map((line) => sanitize(line.replace(/\r$/, "")).slice(0, width)).join("\n")
  switch (exit._tag) {
    case "Quit":
      return exit.reason ? fromServer(exit.reason) : "The server ended the session."
    case "GameOver":
      return `GAME OVER:\n${fromServer(exit.summary)}`
    case "Refused":
      return `the server refused to let you join${exit.reason ? `: ${fromServer(exit.reason)}` : "."}`
    case "BadGrid":
      return `the server sent a grid no map can have (${fromServer(exit.reason)}).`
    case "NoServer":
      return exit.why === "no answer"
        ? `${exit.server} — no Nuggets server answered`
        : `${exit.server} — no Nuggets server there (port unreachable)`
    case "UserQuit":
      return exit.how === "no answer" ? "The server did not answer; left anyway." : ""
  }
}
