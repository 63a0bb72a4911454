import { type GameMap, straightSteps } from "../../core/map.js"

/** Views held against the map they are of: fitted to its size, the spectator's checked, a walk's cells. */

/** The view as the map's size: as it is, or cut of blank padding (a blank last column, a blank last row); undefined if neither. */
export const fitToMap = (map: GameMap, rows: ReadonlyArray<string>): ReadonlyArray<string> | undefined => {
  const { cols } = map
  if (rows.length === map.rows && rows.every((row) => row.length === cols)) return rows
  const blank = (text: string) => /^ *$/.test(text)
  if (rows.length < map.rows || rows.some((row) => row.length < cols)) return undefined
  if (!rows.slice(map.rows).every(blank) || !rows.every((row) => blank(row.slice(cols)))) return undefined
  return rows.slice(0, map.rows).map((row) => row.slice(0, cols))
}

/** The first gridpoint a spectator's view shows wrong (the map as it is, gold on room spots, players on spots), in words. */
export const shownWrong = (map: GameMap, rows: ReadonlyArray<string>): string | undefined => {
  for (const [row, line] of rows.entries()) {
    for (let col = 0; col < map.cols; col++) {
      const shown = line.charAt(col)
      const there = String.fromCharCode(map.cells[row * map.cols + col] ?? 0x20)
      const fits = shown === there || (shown === "*" && there === ".") || (/[A-Z]/.test(shown) && (there === "." || there === "#"))
      if (!fits) return `row ${row} col ${col}: the map has '${there}', the spectator is shown '${shown}'`
    }
  }
  return undefined
}

/** The cells of a straight walk (a row, a column or a diagonal) from `from` to `to`; just `to` otherwise. */
export const straightWalk = (map: GameMap, from: number, to: number): ReadonlyArray<number> => {
  const cols = map.cols
  const steps = straightSteps(Math.floor(to / cols) - Math.floor(from / cols), (to % cols) - (from % cols))
  return steps === undefined ? [to] : steps.map(([dRow, dCol]) => from + dRow * cols + dCol)
}

/** Whether `cell` is in the sorted `cells`. */
export const sortedHas = (cells: ArrayLike<number>, cell: number): boolean => {
  let low = 0
  let high = cells.length - 1
  while (low <= high) {
    const middle = (low + high) >>> 1
    const at = cells[middle] ?? -1
    if (at === cell) return true
    if (at < cell) low = middle + 1
    else high = middle - 1
  }
  return false
}

export const sameCells = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

