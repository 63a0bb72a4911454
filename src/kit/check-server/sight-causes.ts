import { type GameMap, PassageSpot, RoomSpot } from "../../core/map.js"
import type { SightRule } from "../../core/visibility.js"

/**
 * Why a player's view may differ from the visibility rule, for a grader reading a failure:
 * the cells that differ, as a small picture of the neighbourhood, and the likely cause,
 * found by holding those cells against the ways CS50 servers are known to get sight wrong:
 * from a passage, with Bresenham lines, with a slope cut to a whole number or rounded the
 * wrong way, or with players and gold remembered out of sight.
 */

interface Cell {
  readonly row: number
  readonly col: number
}

/** Whether sight passes through `cell` by `rule`. */
const clear = (map: GameMap, cell: number, rule: SightRule) =>
  map.cells[cell] === RoomSpot || (rule === "allSpots" && map.cells[cell] === PassageSpot)

type Model = (map: GameMap, from: Cell, to: Cell, rule: SightRule) => boolean

/** Every cell a Bresenham line from `from` to `to` steps on, strictly between, lets sight through. */
const bresenham: Model = (map, from, to, rule) => {
  const dCol = Math.abs(to.col - from.col)
  const dRow = -Math.abs(to.row - from.row)
  const sCol = from.col < to.col ? 1 : -1
  const sRow = from.row < to.row ? 1 : -1
  let error = dCol + dRow
  let { col, row } = from
  for (;;) {
    const doubled = 2 * error
    if (doubled >= dRow) {
      error += dRow
      col += sCol
    }
    if (doubled <= dCol) {
      error += dCol
      row += sRow
    }
    if (row === to.row && col === to.col) return true
    if (!clear(map, row * map.cols + col, rule)) return false
  }
}

/**
 * The spec's rule worked out as a server may have written it: at each row (and column)
 * `steps` gridpoints along, the line is `place(steps, delta, across)` gridpoints aside,
 * where the line goes `delta` aside over `across`.
 */
type Place = (steps: number, delta: number, across: number) => { readonly whole: number; readonly exact: boolean }

const sloped = (place: Place): Model => (map, from, to, rule) => {
  const dRow = to.row - from.row
  const dCol = to.col - from.col
  const at = (row: number, col: number) => (row < 0 || col < 0 || row >= map.rows || col >= map.cols ? -1 : row * map.cols + col)
  const open = (cell: number) => cell !== -1 && clear(map, cell, rule)
  for (let row = from.row + Math.sign(dRow); dRow !== 0 && row !== to.row; row += Math.sign(dRow)) {
    const { exact, whole } = place(row - from.row, dCol, dRow)
    const base = at(row, from.col + whole)
    if (exact ? !open(base) : !open(base) && !open(at(row, from.col + whole + 1))) return false
  }
  for (let col = from.col + Math.sign(dCol); dCol !== 0 && col !== to.col; col += Math.sign(dCol)) {
    const { exact, whole } = place(col - from.col, dRow, dCol)
    const base = at(from.row + whole, col)
    if (exact ? !open(base) : !open(base) && !open(at(from.row + whole + 1, col))) return false
  }
  return true
}

/** C's `/` cuts toward zero, where the rule needs the line's place rounded down. */
const truncated = sloped((steps, delta, across) => ({ whole: Math.trunc((steps * delta) / across), exact: (steps * delta) % across === 0 }))
/** `float slope = (col - pcol) / (row - prow)` in ints: the slope itself a whole number. */
const wholeSlope = sloped((steps, delta, across) => ({ whole: Math.trunc(delta / across) * steps, exact: true }))

/** The models named for a grader, each with the sentence that names it. */
const models: ReadonlyArray<readonly [Model, string]> = [
  [truncated, "a wrong slope: the line's column rounded toward zero (C's integer division) where the rule rounds down"],
  [wholeSlope, "a wrong slope: the slope cut to a whole number before it is used"],
  [bresenham, "Bresenham lines: the cells a drawn line steps on must all be clear, where the rule looks between gridpoints"]
]

export interface Difference {
  readonly row: number
  readonly col: number
  /** What the rule gives there. */
  readonly expected: string
  /** What the player was shown. */
  readonly got: string
}

/** The gridpoints where the two views differ. */
export const differingCells = (expected: ReadonlyArray<string>, got: ReadonlyArray<string>): ReadonlyArray<Difference> => {
  const found: Array<Difference> = []
  for (const [row, line] of expected.entries()) {
    for (let col = 0; col < line.length; col++) {
      const want = line.charAt(col)
      const have = got[row]?.charAt(col) ?? ""
      if (want !== have) found.push({ row, col, expected: want, got: have })
    }
  }
  return found
}

const isOccupant = (char: string) => char === "*" || (char >= "A" && char <= "Z")

/** The likely cause of the differences, in a sentence, when one fits them all. */
export const likelyCause = (map: GameMap, rule: SightRule, at: Cell, differences: ReadonlyArray<Difference>): string | undefined => {
  if (differences.length === 0) return undefined
  const occupantOutOfSight = differences.filter((each) => isOccupant(each.got) && !isOccupant(each.expected))
  if (occupantOutOfSight.length > 0 && occupantOutOfSight.length >= differences.length / 2) {
    return "players or gold shown where the player cannot see now: the server keeps occupants in a player's memory of the map, which should keep only the map"
  }
  // Cells the rule shows that the server hid, and cells it showed that the rule hides from here.
  const hidden = differences.filter((each) => each.got === " " && each.expected !== " ")
  const shown = differences.filter((each) => each.expected === " " && each.got !== " ")
  const onPassage = map.cells[at.row * map.cols + at.col] === PassageSpot
  if (onPassage && hidden.length > 0 && shown.length === 0) {
    return "sight from a passage spot: the player stands in a passage, and is shown less than the rule sees from there"
  }
  if (hidden.length + shown.length < differences.length) return undefined
  for (const [model, words] of models) {
    const fits = hidden.every((each) => !model(map, at, each, rule)) && shown.every((each) => model(map, at, each, rule))
    if (fits) return words
  }
  return undefined
}

/**
 * The neighbourhood of the first differences, as the rule gives it and as it was shown,
 * side by side, with `^` under each cell that differs (at most `height` rows of `width`).
 */
export const neighbourhood = (
  expected: ReadonlyArray<string>,
  got: ReadonlyArray<string>,
  at: Cell,
  differences: ReadonlyArray<Difference>,
  height = 7,
  width = 21
): ReadonlyArray<string> => {
  const first = differences[0]
  if (first === undefined) return []
  const rows = expected.length
  const cols = expected[0]?.length ?? 0
  // Around the first difference, with the player in the picture when it is near.
  const near = Math.abs(at.row - first.row) < height && Math.abs(at.col - first.col) < width
  const centre = near ? { row: Math.round((at.row + first.row) / 2), col: Math.round((at.col + first.col) / 2) } : first
  const top = Math.max(0, Math.min(rows - height, centre.row - Math.floor(height / 2)))
  const left = Math.max(0, Math.min(cols - width, centre.col - Math.floor(width / 2)))
  const differs = new Set(differences.map((each) => each.row * cols + each.col))
  const label = (text: string) => text.padEnd(width)
  const lines = [`rows ${top}-${Math.min(rows, top + height) - 1}, cols ${left}-${Math.min(cols, left + width) - 1}` +
    `${near ? ` (@ at row ${at.row} col ${at.col})` : ""}:`, `      ${label("the rule gives")}   ${label("it was shown")}`]
  for (let row = top; row < Math.min(rows, top + height); row++) {
    const slice = (view: ReadonlyArray<string>) => (view[row] ?? "").slice(left, left + width).padEnd(width)
    let marks = ""
    for (let col = left; col < Math.min(cols, left + width); col++) marks += differs.has(row * cols + col) ? "^" : " "
    lines.push(`  ${String(row).padStart(3)} ${slice(expected)}   ${slice(got)}   ${marks.trimEnd()}`)
  }
  return lines
}
