import { Data, Either } from "effect"
import { GoldMaxNumPiles, MaxPlayers } from "./constants.js"

export const Rock = 0x20 // ' '
export const RoomSpot = 0x2e // '.'
export const PassageSpot = 0x23 // '#'
const Corner = 0x2b // '+'

const mapCharacters = " -|+.#"

/** A parsed map: NR x NC gridpoints, row-major, one char code per gridpoint. */
export interface GameMap {
  readonly rows: number
  readonly cols: number
  readonly cells: Uint8Array
  /** Indices of every room spot `.`, in reading order: where gold and players are dropped. */
  readonly roomSpots: Int32Array
}

export const isSpot = (ch: number): boolean => ch === RoomSpot || ch === PassageSpot

/** A step on the grid, as the rows and columns to add: what a move key makes (`MoveDirections`). */
export type Offset = readonly [dRow: number, dCol: number]

/**
 * The gridpoint one `step` from `cell` on a row-major grid, or -1 off the grid: the one
 * rule of neighbours that moves, map checks and bots share.
 */
export const stepFrom = (rows: number, cols: number, cell: number, [dRow, dCol]: Offset): number => {
  const row = Math.floor(cell / cols) + dRow
  const col = cell - Math.floor(cell / cols) * cols + dCol
  return row < 0 || col < 0 || row >= rows || col >= cols ? -1 : row * cols + col
}

/**
 * The offsets of each gridpoint after the start of a straight walk (along a row, a column
 * or a diagonal) that ends `dRow`, `dCol` away, the end included; undefined when no one key
 * walks there. What a run passes through: the reader and the checker both retrace runs by it.
 */
export const straightSteps = (dRow: number, dCol: number): ReadonlyArray<Offset> | undefined => {
  if (dRow !== 0 && dCol !== 0 && Math.abs(dRow) !== Math.abs(dCol)) return undefined
  const length = Math.max(Math.abs(dRow), Math.abs(dCol))
  return Array.from({ length }, (_, k) => [Math.sign(dRow) * (k + 1), Math.sign(dCol) * (k + 1)] as const)
}

/** Room spots a map needs so that every player and the most gold piles can be dropped on spots of their own. */
export const requiredRoomSpots = MaxPlayers + GoldMaxNumPiles

export class MapError extends Data.TaggedError("MapError")<{
  readonly reason: "Empty" | "BadCharacter" | "NoRoomSpot"
  readonly message: string
  /** 0-based; present when one gridpoint is to blame. */
  readonly row?: number
  readonly col?: number
}> {}

const where = (row: number, col: number) => `line ${row + 1}, column ${col + 1}`

const describeChar = (ch: string) => {
  const code = ch.codePointAt(0) ?? 0
  return code >= 0x21 && code <= 0x7e ? `'${ch}'` : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`
}

/**
 * Parses a map file. Accepts a trailing newline and CRLF line ends; short lines are
 * padded with solid rock because many map files lose their trailing spaces.
 */
export const parseMap = (text: string): Either.Either<GameMap, MapError> => {
  const body = text.endsWith("\r\n") ? text.slice(0, -2) : text.endsWith("\n") ? text.slice(0, -1) : text
  if (body.length === 0) {
    return Either.left(new MapError({ reason: "Empty", message: "the map file is empty" }))
  }
  const lines = body.split(/\r?\n/)
  const rows = lines.length
  let cols = 0
  for (let row = 0; row < rows; row++) {
    const line = lines[row]!
    for (let col = 0; col < line.length; col++) {
      const ch = line[col]!
      if (!mapCharacters.includes(ch)) {
        return Either.left(
          new MapError({
            reason: "BadCharacter",
            row,
            col,
            message: `${where(row, col)}: ${describeChar(ch)} is not a map character (one of " -|+.#")`
          })
        )
      }
    }
    cols = Math.max(cols, line.length)
  }
  if (cols === 0) {
    return Either.left(new MapError({ reason: "Empty", message: "the map file has only empty lines" }))
  }
  const cells = new Uint8Array(rows * cols).fill(Rock)
  const roomSpots: Array<number> = []
  for (let row = 0; row < rows; row++) {
    const line = lines[row]!
    for (let col = 0; col < line.length; col++) {
      const ch = line.charCodeAt(col)
      cells[row * cols + col] = ch
      if (ch === RoomSpot) roomSpots.push(row * cols + col)
    }
  }
  if (roomSpots.length === 0) {
    return Either.left(
      new MapError({ reason: "NoRoomSpot", message: "the map has no room spot '.': nowhere to drop gold or players" })
    )
  }
  return Either.right({ rows, cols, cells, roomSpots: Int32Array.from(roomSpots) })
}

/** The map as text, one line per row, each ending in a newline. */
export const mapText = (map: GameMap): string => {
  let out = ""
  for (let row = 0; row < map.rows; row++) {
    out += String.fromCharCode(...map.cells.subarray(row * map.cols, (row + 1) * map.cols)) + "\n"
  }
  return out
}

// ---- The spec's other validity rules, checked by `nuggets map check` ----

/** A gap in a room's wall: solid rock beside a room spot, here. */
export class WallGap extends Data.TaggedError("WallGap")<{ readonly row: number; readonly col: number }> {
  override get message() {
    return `${where(this.row, this.col)}: a gap in a room's wall, solid rock beside a room spot '.' (room not closed)`
  }
}

/** A room spot on the grid's edge: no wall between it and the world's end. */
export class RoomAtEdge extends Data.TaggedError("RoomAtEdge")<{ readonly row: number; readonly col: number }> {
  override get message() {
    return `${where(this.row, this.col)}: room spot '.' on the edge of the grid, with no wall beyond it (room not closed)`
  }
}

/** A corner '+' that ends a passage but is no room's corner: no room spot beside it. */
export class StrayCorner extends Data.TaggedError("StrayCorner")<{ readonly row: number; readonly col: number }> {
  override get message() {
    return `${where(this.row, this.col)}: corner '+' at the end of a passage, the corner of no room ` +
      `(a passage meets a room through a gap in its wall)`
  }
}

export class PassageAtCorner extends Data.TaggedError("PassageAtCorner")<{ readonly row: number; readonly col: number }> {
  override get message() {
    return `${where(this.row, this.col)}: passage '#' meets a room at a corner (it must interrupt a wall)`
  }
}

export class MapDisconnected extends Data.TaggedError("MapDisconnected")<{
  readonly row: number
  readonly col: number
  readonly components: number
}> {
  override get message() {
    return `${where(this.row, this.col)}: this spot cannot be reached from the first spot ` +
      `(the map has ${this.components} separate parts; it must be one)`
  }
}

export class TooFewSpots extends Data.TaggedError("TooFewSpots")<{ readonly spots: number }> {
  override get message() {
    return `the map has ${this.spots} room spots; the spec asks for ${requiredRoomSpots} ` +
      `(${MaxPlayers} players + ${GoldMaxNumPiles} gold piles), so a game on it has fewer piles`
  }
}

/**
 * A broken rule of the spec's "valid maps". A server still plays such a map, as the C
 * servers do: the spec lets it assume its map is valid, and refusing one would help no one.
 */
export type MapProblem = TooFewSpots | WallGap | RoomAtEdge | StrayCorner | PassageAtCorner | MapDisconnected

const orthogonal: ReadonlyArray<Offset> = [[-1, 0], [1, 0], [0, -1], [0, 1]]
const diagonal: ReadonlyArray<Offset> = [[-1, -1], [-1, 1], [1, -1], [1, 1]]
const allNeighbours = [...orthogonal, ...diagonal]

/**
 * Every broken validity rule, one entry per gridpoint at fault (per part, for connectivity),
 * in reading order: the gap in a wall, not the room spots beside it; the stray corner, not
 * the passage that ends at it.
 */
export const mapProblems = (map: GameMap): ReadonlyArray<MapProblem> => {
  const { rows, cols, cells } = map
  /** What lies one step away; undefined off the grid. */
  const at = (cell: number, step: Offset) => {
    const next = stepFrom(rows, cols, cell, step)
    return next < 0 ? undefined : cells[next]!
  }
  const roomNotClosed: Array<MapProblem> = []
  const strayCorners: Array<MapProblem> = []
  const passageAtCorner: Array<MapProblem> = []
  for (let cell = 0; cell < cells.length; cell++) {
    const row = Math.floor(cell / cols)
    const col = cell - row * cols
    const ch = cells[cell]
    const beside = (steps: ReadonlyArray<Offset>, wanted: number) => steps.some((step) => at(cell, step) === wanted)
    if (ch === Rock) {
      if (beside(allNeighbours, RoomSpot)) roomNotClosed.push(new WallGap({ row, col }))
    } else if (ch === RoomSpot) {
      if (allNeighbours.some((step) => at(cell, step) === undefined)) roomNotClosed.push(new RoomAtEdge({ row, col }))
    } else if (ch === Corner) {
      if (beside(orthogonal, PassageSpot) && !beside(allNeighbours, RoomSpot)) strayCorners.push(new StrayCorner({ row, col }))
    } else if (ch === PassageSpot) {
      if (beside(diagonal, RoomSpot) && !beside(orthogonal, RoomSpot)) passageAtCorner.push(new PassageAtCorner({ row, col }))
    }
  }
  const tooFewSpots = map.roomSpots.length < requiredRoomSpots ? [new TooFewSpots({ spots: map.roomSpots.length })] : []
  return [...tooFewSpots, ...roomNotClosed, ...strayCorners, ...passageAtCorner, ...disconnectedParts(map)]
}

/** One problem per part of the map that cannot be reached from the first spot. */
const disconnectedParts = (map: GameMap): ReadonlyArray<MapDisconnected> => {
  const { rows, cols, cells } = map
  const part = new Int32Array(cells.length).fill(-1)
  const starts: Array<number> = []
  const queue = new Int32Array(cells.length)
  for (let start = 0; start < cells.length; start++) {
    if (!isSpot(cells[start]!) || part[start] !== -1) continue
    const id = starts.length
    starts.push(start)
    part[start] = id
    let head = 0
    let tail = 0
    queue[tail++] = start
    while (head < tail) {
      const here = queue[head++]!
      for (const step of orthogonal) {
        const next = stepFrom(rows, cols, here, step)
        if (next >= 0 && part[next] === -1 && isSpot(cells[next]!)) {
          part[next] = id
          queue[tail++] = next
        }
      }
    }
  }
  return starts.slice(1).map((start) =>
    new MapDisconnected({ row: Math.floor(start / cols), col: start % cols, components: starts.length })
  )
}
