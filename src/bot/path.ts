/** Finding one's way on a DISPLAY grid, as a player sees it: pure functions for bots and tests. */

export interface Position {
  readonly row: number
  readonly col: number
}

/** The move keys and the step each one makes. */
export const moves: ReadonlyArray<readonly [key: string, dRow: number, dCol: number]> = [
  ["h", 0, -1], ["l", 0, 1], ["k", -1, 0], ["j", 1, 0], ["y", -1, -1], ["u", -1, 1], ["b", 1, -1], ["n", 1, 1]
]

/** The lines of a DISPLAY grid (its text after "DISPLAY\n"). */
export const gridLines = (grid: string): ReadonlyArray<string> => grid.replace(/\n$/, "").split("\n")

export const find = (lines: ReadonlyArray<string>, wanted: (ch: string) => boolean): Array<Position> => {
  const found: Array<Position> = []
  lines.forEach((line, row) => {
    for (let col = 0; col < line.length; col++) if (wanted(line[col]!)) found.push({ row, col })
  })
  return found
}

/** Where one can step: spots, gold, and other players (who swap). */
export const walkable = (ch: string) => ch === "." || ch === "#" || ch === "*" || (ch >= "A" && ch <= "Z")

/**
 * The key for the first step of a shortest walk from `from` to the nearest gridpoint
 * satisfying `goal`, or undefined if none can be reached over what is drawn.
 */
export const firstStepToward = (
  lines: ReadonlyArray<string>,
  from: Position,
  goal: (ch: string, at: Position) => boolean
): string | undefined => {
  const rows = lines.length
  const cols = Math.max(0, ...lines.map((line) => line.length))
  const firstKey = new Array<string | undefined>(rows * cols)
  const seen = new Uint8Array(rows * cols)
  const queue: Array<Position> = [from]
  seen[from.row * cols + from.col] = 1
  for (let head = 0; head < queue.length; head++) {
    const here = queue[head]!
    for (const [key, dRow, dCol] of moves) {
      const row = here.row + dRow
      const col = here.col + dCol
      if (row < 0 || col < 0 || row >= rows || col >= cols || seen[row * cols + col]) continue
      const ch = lines[row]![col] ?? " "
      if (!walkable(ch)) continue
      seen[row * cols + col] = 1
      const key0 = here === from ? key : firstKey[here.row * cols + here.col]!
      if (goal(ch, { row, col })) return key0
      firstKey[row * cols + col] = key0
      queue.push({ row, col })
    }
  }
  return undefined
}

/**
 * `firstStepToward` on a row-major grid of cell indices: the key for the first step of a
 * shortest walk from `from` over `passable` cells to the nearest cell where `goal` holds.
 */
export const firstStepOnGrid = (
  rows: number,
  cols: number,
  from: number,
  passable: (cell: number) => boolean,
  goal: (cell: number) => boolean
): string | undefined => {
  const size = rows * cols
  // 0: not reached yet; otherwise 1 + the index in `moves` of the walk's first step.
  const firstMove = new Uint8Array(size)
  const queue = new Int32Array(size)
  let tail = 0
  queue[tail++] = from
  firstMove[from] = 255
  for (let head = 0; head < tail; head++) {
    const here = queue[head]!
    const row = Math.floor(here / cols)
    const col = here - row * cols
    for (let m = 0; m < moves.length; m++) {
      const [, dRow, dCol] = moves[m]!
      const r = row + dRow
      const c = col + dCol
      if (r < 0 || c < 0 || r >= rows || c >= cols) continue
      const next = r * cols + c
      if (firstMove[next] !== 0 || !passable(next)) continue
      const first = here === from ? m + 1 : firstMove[here]!
      if (goal(next)) return moves[first - 1]![0]
      firstMove[next] = first
      queue[tail++] = next
    }
  }
  return undefined
}
