import { type Dialect, gameOverMessage, malformedMessage } from "../../protocol/dialect.js"
import { encodeServerMessage } from "../../protocol/messages.js"

/**
 * The little game `check client` serves: one room with a passage out, gold and another
 * player in it, and the messages of either dialect.
 */

export const gridSize = { rows: 6, cols: 32 }

const room = (() => {
  const wall = "+" + "-".repeat(26) + "+"
  const floor = "|" + ".".repeat(26) + "|"
  const rows = [wall, floor, floor, floor, floor, wall].map((row) => row.padEnd(gridSize.cols))
  // A passage out of the room's east wall, and gold and a player B inside.
  rows[2] = rows[2]!.slice(0, 27) + "#####"
  const put = (row: number, col: number, char: string) => (rows[row] = rows[row]!.slice(0, col) + char + rows[row]!.slice(col + 1))
  put(2, 5, "*")
  put(2, 13, "B")
  put(4, 18, "*")
  return rows
})()

export interface At {
  readonly row: number
  readonly col: number
}

export const start: At = { row: 3, col: 8 }

/** The player's view with `@` at `at`, as rows. */
export const playerRows = (at: At = start): ReadonlyArray<string> =>
  room.map((row, index) => (index === at.row ? row.slice(0, at.col) + "@" + row.slice(at.col + 1) : row))

/** The spectator's view: player A where the player stands. */
export const spectatorRows = (at: At = start): ReadonlyArray<string> =>
  room.map((row, index) => (index === at.row ? row.slice(0, at.col) + "A" + row.slice(at.col + 1) : row))

export const display = (rows: ReadonlyArray<string>, finalNewline = true): string =>
  "DISPLAY\n" + rows.join("\n") + (finalNewline ? "\n" : "")

export const grid = `GRID ${gridSize.rows} ${gridSize.cols}`

/** What the server says, in the dialect under check. */
export const wording = (dialect: Dialect) => ({
  refusal: (text: string) => encodeServerMessage(malformedMessage(dialect, text)),
  gameFull: dialect === "2019" ? "NO" : "QUIT Game is full: no more players can join.",
  gameOver: (summary: string) => encodeServerMessage(gameOverMessage(dialect, summary))
})

/** A summary of two players, and the words it must show. */
export const summary = "A      10 Alice\nB     240 Bob\n"
export const summaryWords = ["Alice", "Bob", "10", "240"]

/** What the player's status line reads, as the spec writes it. */
export const playerStatus = (purse: number, left: number) => `Player A has ${purse} nuggets (${left} nuggets unclaimed).`

/** OK A, GRID, GOLD 0 0 250 and a DISPLAY: the player is in. */
export const playerWelcome: ReadonlyArray<string> = ["OK A", grid, "GOLD 0 0 250", display(playerRows())]
