import type { MapText, Snapshot } from "../feed.js"
import { byId } from "./dom.js"

/**
 * The grid: a row per element, only changed rows redrawn. What is drawn is framed around
 * what the view holds, as a player's remembered walls or the map's own rooms, not the blank
 * board around them; the frame only grows, so the map does not jump as a player explores.
 * The font is as large as lets the frame fit the board; below a readable size the board
 * scrolls instead, following the player.
 */

const classes: Readonly<Record<string, string>> = { "+": "w", "-": "w", "|": "w", ".": "f", "#": "p", "*": "g", "@": "me" }
const escapes: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" }
const classOf = (ch: string) => (ch >= "A" && ch <= "Z" ? "o" : classes[ch] ?? "")

/** A row as markup: runs of one class in a span each, every character escaped. */
const rowHtml = (text: string): string => {
  let html = ""
  let run = ""
  let runClass = ""
  const flush = () => {
    if (run !== "") html += runClass ? `<span class="${runClass}">${run}</span>` : run
    run = ""
  }
  for (const ch of text) {
    const c = classOf(ch)
    if (c !== runClass) flush()
    runClass = c
    run += escapes[ch] ?? ch
  }
  flush()
  return html
}

/** The spectator's view: the map with the piles and the players drawn on it. */
export const spectatorRows = (map: MapText, snapshot: Snapshot): ReadonlyArray<string> => {
  const lines = map.map.split("\n")
  const changed = new Map<number, Array<string>>()
  const put = (cell: number, ch: string) => {
    const row = Math.floor(cell / map.cols)
    if (row < 0 || row >= map.rows) return
    let chars = changed.get(row)
    if (chars === undefined) changed.set(row, (chars = Array.from(lines[row] ?? "")))
    chars[cell % map.cols] = ch
  }
  for (const cell of snapshot.gold) put(cell, "*")
  for (const player of snapshot.players) if (player.cell >= 0) put(player.cell, player.letter)
  for (const [row, chars] of changed) lines[row] = chars.join("")
  return lines
}

/** The part of the view drawn: its first row and column, and how many of each. */
export interface Frame {
  readonly top: number
  readonly left: number
  readonly rows: number
  readonly cols: number
}

/** The smallest frame holding every character of `rows` that is not blank, and `within` (when given); undefined for a blank view. */
export const frameAround = (rows: ReadonlyArray<string>, within?: Frame): Frame | undefined => {
  let [top, bottom, left, right] = within
    ? [within.top, within.top + within.rows - 1, within.left, within.left + within.cols - 1]
    : [Infinity, -1, Infinity, -1]
  rows.forEach((text, row) => {
    const first = text.search(/\S/)
    if (first < 0) return
    top = Math.min(top, row)
    bottom = Math.max(bottom, row)
    left = Math.min(left, first)
    right = Math.max(right, text.trimEnd().length - 1)
  })
  return bottom < 0 ? undefined : { top, left, rows: bottom - top + 1, cols: right - left + 1 }
}

/** Font sizes, in px: the smallest that reads (below it the board scrolls), the smallest for a player, the largest. */
const fontSizes = { least: 9, player: 14, most: 48 }

export class Board {
  private readonly grid = byId("grid")
  private readonly board = byId("board")
  private shown: Array<string | null> = []
  private frame: Frame | undefined
  private charWidth = 0.6
  private readonly lineHeight = 1.2
  /** A player's own view: its font may stay larger, and the board scrolls to follow it. */
  large = false

  constructor() {
    const probe = document.createElement("span")
    probe.style.fontSize = "100px"
    probe.textContent = "0000000000"
    this.grid.appendChild(probe)
    const width = probe.getBoundingClientRect().width
    if (width > 0) this.charWidth = width / 1000
    this.grid.removeChild(probe)
    window.addEventListener("resize", () => this.fit())
  }

  /** Another view from now on (watching, playing): framed afresh. */
  reset(): void {
    this.frame = undefined
  }

  draw(rows: ReadonlyArray<string>): void {
    const frame = frameAround(rows, this.frame) ?? { top: 0, left: 0, rows: rows.length, cols: rows[0]?.length ?? 0 }
    const was = this.frame
    if (was === undefined || frame.top !== was.top || frame.left !== was.left || frame.rows !== was.rows || frame.cols !== was.cols) {
      this.frame = frame
      this.grid.textContent = ""
      this.shown = Array.from({ length: frame.rows }, () => null)
      for (let r = 0; r < frame.rows; r++) this.grid.appendChild(document.createElement("div"))
      this.fit()
    }
    for (let r = 0; r < frame.rows; r++) {
      const text = (rows[frame.top + r] ?? "").slice(frame.left, frame.left + frame.cols)
      if (text === this.shown[r]) continue
      this.grid.children[r]!.innerHTML = rowHtml(text)
      this.shown[r] = text
    }
  }

  /**
   * The font that fits the frame in the board: its width, and the height the window leaves
   * it. Beside the panel the board has its own height; above it (a narrow window) it may
   * take the window's height below its top, less what follows it and must stay in sight
   * (the touch pad).
   */
  fit(): void {
    const frame = this.frame
    if (frame === undefined || frame.rows === 0 || frame.cols === 0) return
    const board = this.board
    const stacked = getComputedStyle(board).flexGrow === "0"
    const below = stacked ? this.stayInSight() : 0
    const top = board.getBoundingClientRect().top + window.scrollY
    const height = stacked ? Math.max(window.innerHeight * 0.4, window.innerHeight - top - below - 8) : board.clientHeight
    const fits = Math.min((board.clientWidth - 2) / (frame.cols * this.charWidth), (height - 2) / (frame.rows * this.lineHeight))
    const size = Math.max(this.large ? fontSizes.player : fontSizes.least, Math.min(fontSizes.most, Math.floor(fits * 10) / 10))
    this.grid.style.fontSize = `${size}px`
    board.style.maxHeight = stacked ? `${Math.floor(height)}px` : ""
  }

  /** The height of what follows the board and must stay in sight with it. */
  private stayInSight(): number {
    const pad = document.getElementById("pad")
    return pad && !pad.hidden ? pad.getBoundingClientRect().height : 0
  }

  /** On a frame larger than the board, keeps `row`, `col` (of the whole view) near the middle of what shows. */
  keepInView(row: number, col: number): void {
    const frame = this.frame ?? { top: 0, left: 0 }
    const size = parseFloat(this.grid.style.fontSize) || 16
    const x = (col - frame.left) * size * this.charWidth
    const y = (row - frame.top) * size * this.lineHeight
    const b = this.board
    if (x < b.scrollLeft + b.clientWidth / 4 || x > b.scrollLeft + (b.clientWidth * 3) / 4) b.scrollLeft = x - b.clientWidth / 2
    if (y < b.scrollTop + b.clientHeight / 4 || y > b.scrollTop + (b.clientHeight * 3) / 4) b.scrollTop = y - b.clientHeight / 2
  }
}
