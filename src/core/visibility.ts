import { type GameMap, PassageSpot, Rock, RoomSpot } from "./map.js"

/**
 * `spec`: the requirements spec's rule; along a row or column every spot (room or
 * passage) lets sight through. `roomSpotsOnly`: the later CS50 reading, in which only
 * room spots do, so one cannot see along a passage.
 */
export type SightRule = "spec" | "roomSpotsOnly"

/**
 * Whether gridpoint `to` is visible from gridpoint `from` (the spec's Visibility section).
 * Along a row or column every gridpoint strictly between must let sight through. On a
 * sloped line, for each row (and each column) strictly between, the line either hits a
 * gridpoint exactly, which must be a room spot, or passes between two, which block only
 * if neither is a room spot. Integer arithmetic keeps "hits exactly" exact.
 */
export const isVisible = (map: GameMap, from: number, to: number, rule: SightRule = "spec"): boolean => {
  const { cells, cols } = map
  if (cells[to] === Rock) return false
  if (from === to) return true
  const fromRow = Math.floor(from / cols)
  const fromCol = from - fromRow * cols
  const toRow = Math.floor(to / cols)
  const toCol = to - toRow * cols
  const dRow = toRow - fromRow
  const dCol = toCol - fromCol

  if (dRow === 0 || dCol === 0) {
    const step = dRow === 0 ? Math.sign(dCol) : Math.sign(dRow) * cols
    for (let at = from + step; at !== to; at += step) {
      const ch = cells[at]
      if (ch !== RoomSpot && (rule === "roomSpotsOnly" || ch !== PassageSpot)) return false
    }
    return true
  }

  const rowStep = Math.sign(dRow)
  for (let row = fromRow + rowStep; row !== toRow; row += rowStep) {
    // The line's column here is fromCol + offset / dRow.
    const offset = (row - fromRow) * dCol
    const whole = Math.floor(offset / dRow)
    const base = row * cols + fromCol + whole
    if (whole * dRow === offset) {
      if (cells[base] !== RoomSpot) return false
    } else if (cells[base] !== RoomSpot && cells[base + 1] !== RoomSpot) {
      return false
    }
  }
  const colStep = Math.sign(dCol)
  for (let col = fromCol + colStep; col !== toCol; col += colStep) {
    const offset = (col - fromCol) * dRow
    const whole = Math.floor(offset / dCol)
    const base = (fromRow + whole) * cols + col
    if (whole * dCol === offset) {
      if (cells[base] !== RoomSpot) return false
    } else if (cells[base] !== RoomSpot && cells[base + cols] !== RoomSpot) {
      return false
    }
  }
  return true
}

/**
 * The visible set of each spot, computed on first use and kept: what a player sees
 * depends only on where it stands, so each spot's set is worked out once per game.
 */
export interface Sight {
  readonly map: GameMap
  readonly rule: SightRule
  /** Gridpoints visible from `spot`, in reading order. Shared: do not modify. */
  readonly visibleFrom: (spot: number) => Uint16Array | Int32Array
  readonly isVisible: (from: number, to: number) => boolean
}

export const makeSight = (map: GameMap, rule: SightRule = "spec"): Sight => {
  const cache: Array<Uint16Array | Int32Array | undefined> = new Array(map.cells.length)
  const nonRock = nonRockCells(map)
  const scratch = new Int32Array(nonRock.length)
  const compute = (spot: number) => {
    let count = 0
    for (let i = 0; i < nonRock.length; i++) {
      const target = nonRock[i]!
      if (isVisible(map, spot, target, rule)) scratch[count++] = target
    }
    return map.cells.length <= 0x10000 ? Uint16Array.from(scratch.subarray(0, count)) : scratch.slice(0, count)
  }
  return {
    map,
    rule,
    visibleFrom: (spot) => cache[spot] ??= compute(spot),
    isVisible: (from, to) => isVisible(map, from, to, rule)
  }
}

const nonRockCells = (map: GameMap): Int32Array => {
  const out: Array<number> = []
  for (let i = 0; i < map.cells.length; i++) if (map.cells[i] !== Rock) out.push(i)
  return Int32Array.from(out)
}
