import { type GameMap, PassageSpot, RoomSpot } from "../../core/map.js"
import { isVisible, type SightRule } from "../../core/visibility.js"

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

/** A 4-connected walk (one row or one column a step) from `from` to `to`: every cell it steps on before `to` lets sight through. */
const fourConnected: Model = (map, from, to, rule) => {
  const dCol = Math.abs(to.col - from.col)
  const dRow = Math.abs(to.row - from.row)
  const sCol = to.col > from.col ? 1 : -1
  const sRow = to.row > from.row ? 1 : -1
  let error = dCol - dRow
  let { col, row } = from
  for (let steps = dCol + dRow; steps > 0; steps--) {
    if (error > 0) {
      col += sCol
      error -= 2 * dRow
    } else {
      row += sRow
      error += 2 * dCol
    }
    if (row === to.row && col === to.col) return true
    if (!clear(map, row * map.cols + col, rule)) return false
  }
  return true
}

/** The models named for a grader, each with the sentence that names it. */
const knownModels: ReadonlyArray<readonly [Model, string]> = [
  [truncated, "a wrong slope: the line's column rounded toward zero (C's integer division) where the rule rounds down"],
  [wholeSlope, "a wrong slope: the slope cut to a whole number before it is used"],
  [bresenham, "Bresenham lines: the cells a drawn line steps on must all be clear, where the rule looks between gridpoints"],
  [fourConnected, "lines drawn a row or a column at a time (4-connected, as Bresenham's without diagonal steps): every cell stepped on must be clear"]
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
/** A view that differs from the rule: where the player stood, the gridpoints that differ first there, and the two views. */
export interface Sample {
  readonly at: Cell
  readonly differences: ReadonlyArray<Difference>
  readonly expected: ReadonlyArray<string>
  readonly got: ReadonlyArray<string>
}

/** What one sample says of a cause: whether the cause explains every gridpoint that differs. */
type Explains = (sample: Sample) => boolean

const hiddenOf = (sample: Sample) => sample.differences.filter((each) => each.got === " " && each.expected !== " ")
const shownOf = (sample: Sample) => sample.differences.filter((each) => each.expected === " " && each.got !== " ")

/** A model of sight explains a sample when it hides what the server hid and sees what it showed. */
const byModel = (map: GameMap, rule: SightRule, model: (sample: Sample) => Model | undefined): Explains => (sample) => {
  const hidden = hiddenOf(sample)
  const shown = shownOf(sample)
  const sight = model(sample)
  if (sight === undefined || hidden.length + shown.length < sample.differences.length) return false
  return hidden.every((each) => !sight(map, sample.at, each, rule)) && shown.every((each) => sight(map, sample.at, each, rule))
}

/** The map with every player drawn in the sample's views as a room spot. */
const throughPlayers = (map: GameMap) => (sample: Sample): Model | undefined => {
  const cells = map.cells.slice()
  let players = 0
  for (const view of [sample.expected, sample.got]) {
    for (const [row, line] of view.entries()) {
      for (let col = 0; col < line.length; col++) if (line[col]! >= "A" && line[col]! <= "Z") (cells[row * map.cols + col] = RoomSpot), players++
    }
  }
  return players === 0 ? undefined : (_map, from, to, rule) => isVisible({ ...map, cells }, from.row * map.cols + from.col, to.row * map.cols + to.col, rule)
}

/** The causes a grader is told of, each with what fits it and the sentence that names it. */
const causes = (map: GameMap, rule: SightRule): ReadonlyArray<readonly [Explains, string]> => [
  [
    (sample) => sample.differences.every((each) => isOccupant(each.got) && !isOccupant(each.expected)),
    "players or gold shown out of sight: kept in a player's memory of the map, which should keep only the map"
  ],
  [
    (sample) => sample.differences.every((each) => isOccupant(each.expected) && !isOccupant(each.got)),
    "players or gold in sight not shown"
  ],
  [byModel(map, rule, throughPlayers(map)), "sight through a player: a player is let see past another standing in a doorway or a passage, as if players were room spots (the rule looks at the map alone)"],
  [
    (sample) => map.cells[sample.at.row * map.cols + sample.at.col] === PassageSpot && shownOf(sample).length === 0 && hiddenOf(sample).length === sample.differences.length,
    "sight from a passage spot: a player in a passage is shown less than the rule sees from there"
  ],
  ...knownModels.map(([model, words]) => [byModel(map, rule, () => model), words] as const)
]

/** Of the samples, the share a cause must explain to be named. */
const convincing = 0.9

/**
 * The likely cause of the samples' differences, in a sentence: one known cause that explains
 * nearly all of them, else two that do together; undefined when none fits.
 */
export const likelyCause = (map: GameMap, rule: SightRule, samples: ReadonlyArray<Sample>): string | undefined => {
  if (samples.length === 0) return undefined
  const fits = causes(map, rule).map(([explains, words]) => ({ words, explained: new Set(samples.filter(explains)) }))
  const share = (count: number) => `${Math.round((count / samples.length) * 100)}%`
  const of = ` of the ${samples.length} views where a player's view first differs`
  const ranked = fits.filter((each) => each.explained.size > 0).sort((a, b) => b.explained.size - a.explained.size)
  const [first, ...rest] = ranked
  if (first === undefined) return undefined
  if (first.explained.size >= convincing * samples.length) return `${first.words} (it explains ${share(first.explained.size)}${of})`
  for (const second of rest) {
    const both = new Set([...first.explained, ...second.explained]).size
    if (both >= convincing * samples.length) {
      return `${first.words} (${share(first.explained.size)}${of}), and ${second.words} (${share(second.explained.size)})`
    }
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
    `${near ? ` (@ at row ${at.row} col ${at.col})` : ""}:`, `      ${label("the rule gives")}   ${label("it was shown")}   differs`]
  for (let row = top; row < Math.min(rows, top + height); row++) {
    const slice = (view: ReadonlyArray<string>) => (view[row] ?? "").slice(left, left + width).padEnd(width)
    let marks = ""
    for (let col = left; col < Math.min(cols, left + width); col++) marks += differs.has(row * cols + col) ? "^" : " "
    lines.push(`  ${String(row).padStart(3)} ${slice(expected)}   ${slice(got)}   ${marks.trimEnd()}`)
  }
  return lines
}
