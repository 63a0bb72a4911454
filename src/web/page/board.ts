import type { MapText, Snapshot } from "../feed.js"
import { byId } from "./dom.js"

/**
 * The grid: a row per element, only changed rows redrawn. The whole map shows if the
 * window allows a readable font, else it scrolls (following the player, whose own view is
 * mostly dark: it may stay larger).
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

export class Board {
  private readonly grid = byId("grid")
  private readonly board = byId("board")
  private shown: Array<string | null> = []
  private size = { rows: 0, cols: 0 }
  private charWidth = 0.6
  private readonly lineHeight = 1.2
  /** A player's own view is mostly dark: its font may stay larger, and the board scrolls. */
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

  draw(rows: ReadonlyArray<string>): void {
    const cols = rows[0]?.length ?? 0
    if (rows.length !== this.size.rows || cols !== this.size.cols) {
      this.grid.textContent = ""
      this.shown = rows.map(() => null)
      for (let r = 0; r < rows.length; r++) this.grid.appendChild(document.createElement("div"))
      this.size = { rows: rows.length, cols }
      this.fit()
    }
    rows.forEach((text, r) => {
      if (text === this.shown[r]) return
      this.grid.children[r]!.innerHTML = rowHtml(text)
      this.shown[r] = text
    })
  }

  fit(): void {
    const { cols, rows } = this.size
    if (rows === 0 || cols === 0) return
    const fits = Math.min((this.board.clientWidth - 2) / (cols * this.charWidth), (this.board.clientHeight - 2) / (rows * this.lineHeight))
    const size = Math.max(this.large ? 14 : 9, Math.min(24, Math.floor(fits * 10) / 10))
    this.grid.style.fontSize = `${size}px`
  }

  /** On a map larger than the window, keeps `row`, `col` near the middle of what shows. */
  keepInView(row: number, col: number): void {
    const size = parseFloat(this.grid.style.fontSize) || 16
    const x = col * size * this.charWidth
    const y = row * size * this.lineHeight
    const b = this.board
    if (x < b.scrollLeft + b.clientWidth / 4 || x > b.scrollLeft + (b.clientWidth * 3) / 4) b.scrollLeft = x - b.clientWidth / 2
    if (y < b.scrollTop + b.clientHeight / 4 || y > b.scrollTop + (b.clientHeight * 3) / 4) b.scrollTop = y - b.clientHeight / 2
  }
}
