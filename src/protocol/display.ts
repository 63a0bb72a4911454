import { Either } from "effect"
import { PlayerLetters } from "../core/constants.js"
import { type GameMap, Rock } from "../core/map.js"
import { rules2019 } from "../core/rules.js"
import { type GameState, makePlayer, type Player } from "../core/state.js"
import { Occupant, type View, viewOf } from "../core/view.js"
import type { Sight } from "../core/visibility.js"

/** The largest datagram, and so the largest message (the spec's MaxBytes). */
export const MaxBytes = 65507

/** "DISPLAY\n" precedes the grid in every DISPLAY datagram. */
export const DisplayHeader = "DISPLAY\n"
export const DisplayHeaderLength = DisplayHeader.length

export interface GridSize {
  readonly rows: number
  readonly cols: number
}

/** Bytes of a DISPLAY datagram for a grid of this size: each row ends in a newline. */
export const displayBytes = (rows: number, cols: number): number => DisplayHeaderLength + rows * (cols + 1)

/** Whether a grid of this size fits in one DISPLAY datagram. */
export const fitsInDatagram = (rows: number, cols: number): boolean => displayBytes(rows, cols) <= MaxBytes

/** The character drawn for each occupant code: '@' for the viewer, '*' for gold, letters for the others. */
export const occupantChars: Uint8Array = (() => {
  const chars = new Uint8Array(256)
  for (let index = 0; index < PlayerLetters.length; index++) chars[index + 1] = PlayerLetters.charCodeAt(index)
  chars[Occupant.Gold] = 0x2a // '*'
  chars[Occupant.Self] = 0x40 // '@'
  return chars
})()

/** The character a DISPLAY shows for a gridpoint: its occupant if any, else the map character. */
export const cellChar = (terrain: number, occupant: number): number =>
  occupant === Occupant.None ? terrain : occupantChars[occupant]!

/** The DISPLAY text of a view: NR lines of NC characters, each ending in a newline. */
export const viewText = (view: View): string => {
  const { cols, occupants, rows, terrain } = view
  const line = new Array<number>(cols)
  let out = ""
  for (let row = 0, cell = 0; row < rows; row++) {
    for (let col = 0; col < cols; col++, cell++) line[col] = cellChar(terrain[cell]!, occupants[cell]!)
    out += String.fromCharCode(...line) + "\n"
  }
  return out
}

/** Where gridpoint `cell` sits in a DISPLAY datagram. */
export const cellOffset = (cell: number, cols: number): number => DisplayHeaderLength + cell + Math.floor(cell / cols)

/** A whole DISPLAY datagram of solid rock, newlines in place. */
export const blankDisplay = (rows: number, cols: number): Uint8Array => {
  const bytes = new Uint8Array(displayBytes(rows, cols)).fill(Rock)
  for (let i = 0; i < DisplayHeaderLength; i++) bytes[i] = DisplayHeader.charCodeAt(i)
  for (let row = 1; row <= rows; row++) bytes[DisplayHeaderLength + row * (cols + 1) - 1] = 0x0a
  return bytes
}

/**
 * The rows of a DISPLAY's grid text: NR lines of NC characters, where NR x NC is
 * `expected` (GRID's size) when known. The spec ends each row with a newline; real
 * servers also end the last row without one, begin every row with one instead, or end
 * rows with CRLF. No row is ever empty (NC >= 1), so an empty line at either end is a
 * row ending, not a row, and all these read the same (see `variations.ts`). Refused
 * when the rows are not a grid of GRID's size: what the kit holds a server to, while our
 * readers go on to `readDisplayGrid`.
 */
export const parseDisplayGrid = (grid: string, expected?: GridSize): Either.Either<ReadonlyArray<string>, string> => {
  const rows = grid.split("\n")
  if (rows.at(-1) === "") rows.pop()
  if (rows[0] === "") rows.shift()
  const plain = checkRows(rows, expected)
  // CRLF row ends, unless the CR is a column GRID counts.
  if (Either.isLeft(plain) && rows.length > 0 && rows.every((row) => row.endsWith("\r"))) {
    const stripped = checkRows(rows.map((row) => row.slice(0, -1)), expected)
    if (Either.isRight(stripped)) return stripped
  }
  return plain
}

const checkRows = (rows: ReadonlyArray<string>, expected: GridSize | undefined): Either.Either<ReadonlyArray<string>, string> => {
  if (rows.length === 0 || rows[0] === "") return Either.left("the DISPLAY grid is empty")
  const cols = rows[0]!.length
  if (rows.some((row) => row.length !== cols)) return Either.left("the DISPLAY grid's rows differ in length")
  if (expected && (rows.length !== expected.rows || cols !== expected.cols)) {
    return Either.left(`DISPLAY is ${rows.length}x${cols}, GRID said ${expected.rows}x${expected.cols}`)
  }
  return Either.right(rows)
}

/**
 * A DISPLAY's rows as our readers take them: the spec's shape (`parseDisplayGrid`, against
 * `shape`, the size the views have had so far), else what real servers send whose meaning
 * is clear (see `variations.ts`), judged against `said`, GRID's size: blank rows and
 * columns beyond it are padding, cut off; one line of GRID's rows joined by one separator
 * is cut into GRID's rows (or its columns, for a GRID written columns first). Then
 * the DISPLAY's own shape wins over what GRID said (transposed, one larger each way, or
 * smaller): refused when its rows cannot be a grid, or when it is larger than GRID either
 * way round by more than one (801 rows for a GRID of 21: no window would fit it, and the
 * client would hold its keys until one did).
 */
export const readDisplayGrid = (
  text: string,
  shape: GridSize | undefined,
  said: GridSize | undefined
): Either.Either<ReadonlyArray<string>, string> =>
  Either.flatMap(displayRows(text, shape, said), (rows) => {
    if (said === undefined || withinGrid({ rows: rows.length, cols: rows[0]!.length }, said)) return Either.right(rows)
    return Either.left(`DISPLAY is ${rows.length}x${rows[0]!.length}, GRID said ${said.rows}x${said.cols}`)
  })

/** Whether a DISPLAY of `shape` is one GRID's `said` may mean: no more than one larger each way, either way round. */
const withinGrid = (shape: GridSize, said: GridSize): boolean =>
  (shape.rows <= said.rows + 1 && shape.cols <= said.cols + 1) || (shape.rows <= said.cols + 1 && shape.cols <= said.rows + 1)

const displayRows = (text: string, shape: GridSize | undefined, said: GridSize | undefined): Either.Either<ReadonlyArray<string>, string> => {
  const exact = parseDisplayGrid(text, shape)
  if (Either.isRight(exact) || shape === undefined) return exact
  let rows: ReadonlyArray<string> = text.split("\n")
  if (rows.at(-1) === "") rows = rows.slice(0, -1)
  if (rows[0] === "") rows = rows.slice(1)
  if (rows.length > 0 && rows.every((row) => row.endsWith("\r"))) rows = rows.map((row) => row.slice(0, -1))
  const grid = said ?? shape
  if (rows.length === 1 && grid.rows > 1) {
    const lines = oneLineRows(rows[0]!, grid) ?? oneLineRows(rows[0]!, { rows: grid.cols, cols: grid.rows })
    if (lines === undefined) return Either.left(`the DISPLAY is one line of ${rows[0]!.length} characters, not GRID's ${grid.rows} rows`)
    rows = lines
  }
  return checkRows(withoutPadding(rows, grid), undefined)
}

const isBlank = (text: string) => /^ *$/.test(text)

/** Rows and columns beyond GRID's size, all blank, are cut; only when what is left is GRID's size. */
const withoutPadding = (rows: ReadonlyArray<string>, grid: GridSize): ReadonlyArray<string> => {
  if (rows.length < grid.rows || rows.some((row) => row.length < grid.cols)) return rows
  if (!rows.slice(grid.rows).every(isBlank) || !rows.every((row) => isBlank(row.slice(grid.cols)))) return rows
  return rows.slice(0, grid.rows).map((row) => row.slice(0, grid.cols))
}

/** Characters a DISPLAY's grid is made of: a joint between rows is none of these but a space. */
const gridChar = /[-|+.#@*A-Z]/

/**
 * GRID's rows from one line of them joined by one separator, the same at every joint (a
 * space, say), after the last row too or not: rows of GRID's width, or of one less (a
 * server that counts the row's end in GRID's columns).
 */
const oneLineRows = (line: string, grid: GridSize): ReadonlyArray<string> | undefined => {
  for (const cols of [grid.cols, grid.cols - 1]) {
    const width = cols + 1
    if (cols < 1 || (line.length !== grid.rows * width && line.length !== grid.rows * width - 1)) continue
    const joints = new Set(Array.from({ length: grid.rows - 1 }, (_, row) => line[row * width + cols]!))
    const last = line[grid.rows * width - 1]
    if (last !== undefined) joints.add(last)
    const [joint] = joints
    if (joints.size !== 1 || gridChar.test(joint!)) continue
    return Array.from({ length: grid.rows }, (_, row) => line.slice(row * width, row * width + cols))
  }
  return undefined
}

/** Map characters, gold and players: where a move key can take a player, as a DISPLAY shows it. */
export const canStepOn = (char: string): boolean =>
  char === "." || char === "#" || char === "*" || (char >= "A" && char <= "Z")

/**
 * The grid player `letter` must have been sent last, worked out from outside the server
 * (for `check server`, which has no game state): where everyone stands and the gold as the
 * spectator's grid shows them (a spectator that has just pressed Ctrl-L has the game as it
 * stands), what the player knew as its own last grid shows it (every gridpoint not solid
 * rock), and the core's visibility rule. Once a server is quiet, a player's last DISPLAY is
 * this, unless the server skipped a DISPLAY it owed: then it still shows someone who left,
 * or not someone who came. Undefined when the spectator does not show the player, or a grid
 * is not the map's size.
 */
export const expectedPlayerGrid = (
  map: GameMap,
  sight: Sight,
  spectator: ReadonlyArray<string>,
  letter: string,
  last: ReadonlyArray<string>
): ReadonlyArray<string> | undefined => {
  const fits = (grid: ReadonlyArray<string>) => grid.length === map.rows && grid.every((row) => row.length === map.cols)
  const index = PlayerLetters.indexOf(letter)
  if (index === -1 || !fits(spectator) || !fits(last)) return undefined
  const positions = new Map<string, number>()
  const gold = new Map<number, number>()
  spectator.forEach((row, r) => {
    for (let c = 0; c < map.cols; c++) {
      const char = row[c]!
      if (char === "*") gold.set(r * map.cols + c, 1)
      else if (PlayerLetters.includes(char)) positions.set(char, r * map.cols + c)
    }
  })
  if (!positions.has(letter)) return undefined
  const known = new Uint8Array(map.cells.length)
  last.forEach((row, r) => {
    for (let c = 0; c < map.cols; c++) if (row.charCodeAt(c) !== Rock) known[r * map.cols + c] = 1
  })
  const players: Array<Player> = Array.from(PlayerLetters, (each, i) => {
    const position = positions.get(each)
    return makePlayer(i, each, "", each, position ?? 0, 0, position !== undefined, i === index ? known : new Uint8Array(0))
  })
  const state: GameState = {
    // Only a view is drawn from this state: nothing is ever drawn from its generator.
    random: 0,
    rules: { ...rules2019, sight: sight.rule },
    map,
    sight,
    gold,
    goldRemaining: gold.size,
    players,
    spectator: undefined,
    over: false
  }
  return viewText(viewOf(state, index)).split("\n").slice(0, -1)
}
