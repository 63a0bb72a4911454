import { Either } from "effect"
import { straightSteps } from "../core/map.js"
import { saysNotJoined } from "./dialect.js"
import { type GridSize, readDisplayGrid } from "./display.js"
import { decodeServerMessage, type ServerMessage } from "./messages.js"
import { ReaderNote } from "./notes.js"
import type { Standing, Summary } from "./summary.js"

/**
 * The client side of the protocol, shared by the terminal client and the bots: server
 * datagrams in, what the client knows of the game out. Pure functions, both dialects.
 */

export type Role = "player" | "spectator"

/** Why the server ended the session. */
export type SessionEnd =
  /** NO, ERROR or QUIT before the server let us in. */
  | { readonly _tag: "Refused"; readonly reason: string }
  | { readonly _tag: "Quit"; readonly reason: string }
  | { readonly _tag: "GameOver"; readonly summary: Summary }
  /** The first GRID is one no map can have: nothing could ever be drawn. */
  | { readonly _tag: "BadGrid"; readonly reason: string }

export interface Position {
  readonly row: number
  readonly col: number
}

/** A purse change that the next DISPLAY explains: who stole from whom, in the `steal` variant. */
type PurseChange = { readonly gained: number } | { readonly lost: number }

export interface GameReport {
  readonly role: Role
  /** The player's letter, once OK has come. */
  readonly letter: string | undefined
  /** The grid's size: the latest view's own, else GRID's (a DISPLAY's shape wins over GRID's). */
  readonly grid: GridSize | undefined
  /** What the first GRID said, which a DISPLAY may not agree with (see `readDisplayGrid`). */
  readonly gridSaid: GridSize | undefined
  readonly purse: number
  /** Nuggets left to find, once a GOLD has come. */
  readonly remaining: number | undefined
  /** Rows of the latest good DISPLAY: one whose rows are a grid, padding cut off; the player drawn as `@`. */
  readonly view: ReadonlyArray<string> | undefined
  /** Where `@` is in `view`; undefined when the view does not show the player. */
  readonly position: Position | undefined
  /** True once the server has answered anything that is not a refusal. */
  readonly joined: boolean
  readonly ending: SessionEnd | undefined
  /** The type of the latest message, or undefined when it could not be read. */
  readonly latest: ServerMessage["_tag"] | undefined
  /** What the latest message gives the player to read on the status line, if anything (worded in `client/status.ts`). */
  readonly note: ReaderNote | undefined
  readonly purseChange: PurseChange | undefined
  /**
   * The server refused a key of ours as from someone who never joined: it no longer knows
   * our address (a NAT changed our port). The protocol cannot move a player to a new
   * address; the only way back in is to join again as a new player.
   */
  readonly forgotten: boolean
}

export const newReport = (role: Role): GameReport => ({
  role,
  letter: undefined,
  grid: undefined,
  gridSaid: undefined,
  purse: 0,
  remaining: undefined,
  view: undefined,
  position: undefined,
  joined: false,
  ending: undefined,
  latest: undefined,
  note: undefined,
  purseChange: undefined,
  forgotten: false
})

/** Folds one datagram from the server into the report. */
export const readDatagram = (report: GameReport, data: Uint8Array | string): GameReport => {
  if (report.ending) return report
  const decoded = decodeServerMessage(data)
  if (Either.isRight(decoded)) return readMessage({ ...report, latest: decoded.right._tag, note: undefined }, decoded.right)
  const error = decoded.left
  report = { ...report, latest: undefined }
  // Without a sane grid size nothing can be drawn and no window can be big enough.
  if (report.grid === undefined && firstWord(data) === "GRID") {
    return { ...report, ending: { _tag: "BadGrid", reason: error.reason } }
  }
  return { ...report, note: ReaderNote.BadMessage({ kind: error.kind, reason: error.reason }) }
}

/** The game's end with its standings at hand (a replay has them): nothing is worded to be read back. */
export const readGameOver = (report: GameReport, standings: ReadonlyArray<Standing>): GameReport =>
  report.ending ? report : { ...report, latest: "GameOver", note: undefined, ending: { _tag: "GameOver", summary: standings } }

const decoder = new TextDecoder()
const firstWord = (data: Uint8Array | string): string =>
  (typeof data === "string" ? data : decoder.decode(data.subarray(0, 16))).split(/[ \n]/, 1)[0] ?? ""

export const readMessage = (report: GameReport, message: ServerMessage): GameReport => {
  switch (message._tag) {
    case "Ok":
      return report.role === "player" ? { ...report, letter: message.letter, joined: true } : report
    case "No":
    case "Error":
    case "Quit": {
      // The later CS50 servers refuse with QUIT or ERROR; before we are in, each is a refusal.
      if (!report.joined) return { ...report, ending: { _tag: "Refused", reason: message.reason } }
      if (message._tag === "Quit") return { ...report, ending: { _tag: "Quit", reason: message.reason } }
      const forgotten = report.forgotten || (report.role === "player" && saysNotJoined(message.reason))
      return { ...report, forgotten, note: ReaderNote.ServerSaid({ refusal: message._tag, text: message.reason }) }
    }
    case "GameOver":
      return { ...report, ending: { _tag: "GameOver", summary: message.summary } }
    case "Grid": {
      const grid = { rows: message.rows, cols: message.cols }
      const said = report.gridSaid
      if (said && (said.rows !== grid.rows || said.cols !== grid.cols)) {
        return { ...report, note: ReaderNote.GridChanged({ ...grid, firstRows: said.rows, firstCols: said.cols }) }
      }
      // A view read before GRID keeps its own shape.
      return { ...report, grid: report.view ? report.grid : grid, gridSaid: grid, joined: true }
    }
    case "Gold":
      return readGold(report, message)
    case "GoldSteal":
      return readGoldSteal(report, message)
    case "Display": {
      const rows = readDisplayGrid(message.grid, report.grid, report.gridSaid)
      if (Either.isLeft(rows)) return { ...report, note: ReaderNote.BadDisplay({ reason: rows.left }) }
      return readView({ ...report, joined: true }, rows.right)
    }
  }
}

/**
 * The count of nuggets left never grows, so a GOLD with more left than one already read
 * was sent before it and overtaken on the way: it is ignored, or it would take back
 * nuggets (and, read as a shrinking purse, invent a theft).
 */
const isStale = (report: GameReport, remaining: number) => report.remaining !== undefined && remaining > report.remaining

const readGold = (report: GameReport, gold: Extract<ServerMessage, { _tag: "Gold" }>): GameReport => {
  if (isStale(report, gold.remaining)) return { ...report, joined: true }
  // The spectator has no purse, whatever its GOLD says (`GOLD 0 -1 250`, from one server).
  if (report.role === "spectator") return { ...report, joined: true, remaining: gold.remaining }
  if (gold.collected < 0 || gold.purse < 0) {
    const reason = `GOLD ${gold.collected} ${gold.purse} ${gold.remaining} counts nuggets below zero`
    return { ...report, note: ReaderNote.BadMessage({ kind: "malformed", reason }) }
  }
  const next = { ...report, joined: true, purse: gold.purse, remaining: gold.remaining }
  if (gold.collected > 0) {
    return { ...next, note: ReaderNote.GoldReceived({ n: gold.collected }), purseChange: { gained: gold.collected } }
  }
  // With the count of nuggets left unchanged, a smaller purse is a theft (the steal variant).
  const lost = report.purse - gold.purse
  if (lost > 0 && report.joined) return { ...next, note: ReaderNote.TakenFromYou({ n: lost }), purseChange: { lost } }
  return next
}

const readGoldSteal = (report: GameReport, steal: Extract<ServerMessage, { _tag: "GoldSteal" }>): GameReport => {
  if (isStale(report, steal.remaining)) return { ...report, joined: true }
  const next = { ...report, joined: true, purse: steal.purse, remaining: steal.remaining, purseChange: undefined }
  if (steal.change > 0) return { ...next, note: ReaderNote.YouTook({ n: steal.change, from: [steal.other] }) }
  if (steal.change < 0) return { ...next, note: ReaderNote.TookFromYou({ by: steal.other, n: -steal.change }) }
  return { ...next, note: ReaderNote.NothingToTake({ other: steal.other }) }
}

/** Where `char` is in `rows`, when it is there exactly once. */
const findOnce = (rows: ReadonlyArray<string>, char: string): Position | undefined => {
  let found: Position | undefined
  for (let row = 0; row < rows.length; row++) {
    const col = rows[row]!.indexOf(char)
    if (col === -1) continue
    if (found !== undefined || rows[row]!.indexOf(char, col + 1) !== -1) return undefined
    found = { row, col }
  }
  return found
}

/**
 * Where the player stands, and its view with `@` there: some servers draw the player's own
 * spot with its letter instead, so OK's letter is taken as `@` when no `@` is drawn.
 */
const findSelf = (rows: ReadonlyArray<string>, letter: string | undefined) => {
  for (let row = 0; row < rows.length; row++) {
    const col = rows[row]!.indexOf("@")
    if (col !== -1) return { rows, position: { row, col } }
  }
  const at = letter === undefined ? undefined : findOnce(rows, letter)
  if (at === undefined) return { rows, position: undefined }
  const line = rows[at.row]!
  const drawn = rows.map((each, row) => row === at.row ? line.slice(0, at.col) + "@" + line.slice(at.col + 1) : each)
  return { rows: drawn, position: at }
}

const isLetter = (char: string | undefined): char is string => char !== undefined && char >= "A" && char <= "Z"

const readView = (report: GameReport, shown: ReadonlyArray<string>): GameReport => {
  const { position, rows } = report.role === "player" ? findSelf(shown, report.letter) : { rows: shown, position: undefined }
  const shape = { rows: rows.length, cols: rows[0]!.length }
  const grid = report.grid?.rows === shape.rows && report.grid.cols === shape.cols ? report.grid : shape
  const next: GameReport = { ...report, grid, view: rows, position, purseChange: undefined }
  const change = report.purseChange
  const from = report.position
  if (change === undefined || from === undefined || position === undefined) return next
  const steps = straightLine(from, position)
  if ("gained" in change) {
    // Anyone swapped on the way now stands on the path; gold seen on it explains the gain instead.
    const path = steps.slice(0, -1)
    const victims = path.map(({ col, row }) => rows[row]![col]).filter(isLetter)
    const goldSeen = steps.slice(1).some(({ col, row }) => report.view?.[row]?.[col] === "*")
    if (victims.length === 0 || goldSeen) return next
    return { ...next, note: ReaderNote.YouTook({ n: change.gained, from: victims }) }
  }
  // The thief came through our old spot, going away from where we are now.
  const dRow = Math.sign(from.row - position.row)
  const dCol = Math.sign(from.col - position.col)
  for (let row = from.row, col = from.col; rows[row]?.[col] !== undefined; row += dRow, col += dCol) {
    const char = rows[row]![col]!
    if (isLetter(char)) return { ...next, note: ReaderNote.TookFromYou({ by: char, n: change.lost }) }
    if ((char !== "." && char !== "#") || (dRow === 0 && dCol === 0)) break
  }
  return next
}

/** The gridpoints from `from` to `to` on a line along a row, a column or a diagonal; just the two ends otherwise. */
const straightLine = (from: Position, to: Position): ReadonlyArray<Position> => {
  const steps = straightSteps(to.row - from.row, to.col - from.col)
  if (steps === undefined) return [from, to]
  return [from, ...steps.map(([dRow, dCol]) => ({ row: from.row + dRow, col: from.col + dCol }))]
}
