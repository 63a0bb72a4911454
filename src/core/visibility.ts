import { type GameMap, PassageSpot, Rock, RoomSpot } from "./map.js"

/**
 * `allSpots`: the 2019 requirements spec's rule; along a row or column every spot (room or
 * passage) lets sight through. `roomSpotsOnly`: the later CS50 (2021) reading, in which
 * only room spots do, so one cannot see along a passage.
 */
export type SightRule = "allSpots" | "roomSpotsOnly"

/**
 * Whether gridpoint `to` is visible from gridpoint `from` (the spec's Visibility section).
 * Along a row or column every gridpoint strictly between must let sight through. On a
 * sloped line, for each row (and each column) strictly between, the line either hits a
 * gridpoint exactly, which must be a room spot, or passes between two, which block only
 * if neither is a room spot. Integer arithmetic keeps "hits exactly" exact.
 */
export const isVisible = (map: GameMap, from: number, to: number, rule: SightRule = "allSpots"): boolean => {
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
  /**
   * What changes in sight on going from spot `from` to spot `to`, worked out once per pair
   * and kept: a game's moves go between the same few pairs again and again, and a step
   * within a room changes a few gridpoints of the hundreds in sight. Shared: do not modify.
   */
  readonly changeBetween: (from: number, to: number) => SightChange
  readonly isVisible: (from: number, to: number) => boolean
}

export interface SightChange {
  /** Visible from `from` and not from `to`, in reading order. */
  readonly lost: Uint16Array | Int32Array
  /** Visible from `to` and not from `from`, in reading order. */
  readonly gained: Uint16Array | Int32Array
}

/** Pairs of spots whose change in sight is kept: far more than a game's players walk between on the largest map. */
const maxKeptChanges = 1 << 16

/** The two sorted sets' differences, each way, as arrays of the sets' own kind. */
const difference = (
  before: Uint16Array | Int32Array,
  after: Uint16Array | Int32Array,
  CellArray: typeof Uint16Array | typeof Int32Array
): SightChange => {
  const lost: Array<number> = []
  const gained: Array<number> = []
  let i = 0
  let j = 0
  while (i < before.length && j < after.length) {
    if (before[i]! < after[j]!) lost.push(before[i++]!)
    else if (after[j]! < before[i]!) gained.push(after[j++]!)
    else {
      i++
      j++
    }
  }
  while (i < before.length) lost.push(before[i++]!)
  while (j < after.length) gained.push(after[j++]!)
  return { lost: CellArray.from(lost), gained: CellArray.from(gained) }
}

export const makeSight = (map: GameMap, rule: SightRule = "allSpots"): Sight => {
  const cache: Array<Uint16Array | Int32Array | undefined> = new Array(map.cells.length)
  // Gridpoints fit in 16 bits on every map but the largest.
  const CellArray = map.cells.length <= 0x10000 ? Uint16Array : Int32Array
  const rooms = roomParts(map)
  const found = new Int32Array(map.cells.length)
  const compute = (spot: number) => {
    let count = 0
    const box = sightBox(map, rooms, spot)
    for (let row = box.top; row <= box.bottom; row++) {
      for (let at = row * map.cols + box.left, end = row * map.cols + box.right; at <= end; at++) {
        if (isVisible(map, spot, at, rule)) found[count++] = at
      }
    }
    // Along a row or column, sight may reach beyond the box: through passages.
    const row = Math.floor(spot / map.cols)
    const col = spot - row * map.cols
    const straight: ReadonlyArray<readonly [number, number, number]> = [
      [-map.cols, row, box.top - row],
      [map.cols, map.rows - 1 - row, row - box.bottom],
      [-1, col, box.left - col],
      [1, map.cols - 1 - col, col - box.right]
    ]
    for (const [step, room, insideBox] of straight) {
      // `insideBox` (<= 0) counts the steps already covered by the box.
      for (let n = 1 - insideBox, at = spot + step * n; n <= room; n++, at += step) {
        if (!isVisible(map, spot, at, rule)) break
        found[count++] = at
      }
    }
    const visible = new CellArray(count)
    visible.set(found.subarray(0, count))
    return visible.sort()
  }
  const visibleFrom = (spot: number) => cache[spot] ??= compute(spot)
  const changes = new Map<number, SightChange>()
  return {
    map,
    rule,
    visibleFrom,
    changeBetween: (from, to) => {
      const key = from * map.cells.length + to
      let change = changes.get(key)
      if (change === undefined) {
        // Bounded: a long game on a vast map must not keep every pair it ever walked.
        if (changes.size >= maxKeptChanges) changes.clear()
        changes.set(key, change = difference(visibleFrom(from), visibleFrom(to), CellArray))
      }
      return change
    },
    isVisible: (from, to) => isVisible(map, from, to, rule)
  }
}

/** The 8-connected parts of the map made of room spots, each with its bounding box. */
interface RoomParts {
  readonly partOf: Int32Array
  readonly boxes: ReadonlyArray<{ top: number; left: number; bottom: number; right: number }>
}

const roomParts = (map: GameMap): RoomParts => {
  const { rows, cols, cells } = map
  const partOf = new Int32Array(cells.length).fill(-1)
  const boxes: Array<{ top: number; left: number; bottom: number; right: number }> = []
  const stack: Array<number> = []
  for (let start = 0; start < cells.length; start++) {
    if (cells[start] !== RoomSpot || partOf[start] !== -1) continue
    const part = boxes.length
    const box = { top: rows, left: cols, bottom: -1, right: -1 }
    boxes.push(box)
    partOf[start] = part
    stack.push(start)
    while (stack.length > 0) {
      const here = stack.pop()!
      const row = Math.floor(here / cols)
      const col = here - row * cols
      box.top = Math.min(box.top, row)
      box.bottom = Math.max(box.bottom, row)
      box.left = Math.min(box.left, col)
      box.right = Math.max(box.right, col)
      for (let r = Math.max(0, row - 1); r <= Math.min(rows - 1, row + 1); r++) {
        for (let c = Math.max(0, col - 1); c <= Math.min(cols - 1, col + 1); c++) {
          const next = r * cols + c
          if (cells[next] === RoomSpot && partOf[next] === -1) {
            partOf[next] = part
            stack.push(next)
          }
        }
      }
    }
  }
  return { partOf, boxes }
}

/**
 * Where a sloped line of sight from `spot` can end. Sight on a slope needs a room spot
 * beside the line at every row and column it crosses, so those room spots form an
 * 8-connected chain from beside `spot` to beside the target: the target lies within one
 * gridpoint of a part of room spots touching `spot`. (Tests check this against trying
 * every gridpoint.)
 */
const sightBox = (map: GameMap, rooms: RoomParts, spot: number) => {
  const row = Math.floor(spot / map.cols)
  const col = spot - row * map.cols
  let top = row
  let bottom = row
  let left = col
  let right = col
  for (let r = Math.max(0, row - 1); r <= Math.min(map.rows - 1, row + 1); r++) {
    for (let c = Math.max(0, col - 1); c <= Math.min(map.cols - 1, col + 1); c++) {
      const part = rooms.partOf[r * map.cols + c]!
      if (part === -1) continue
      const box = rooms.boxes[part]!
      top = Math.min(top, box.top)
      bottom = Math.max(bottom, box.bottom)
      left = Math.min(left, box.left)
      right = Math.max(right, box.right)
    }
  }
  return {
    top: Math.max(0, top - 1),
    bottom: Math.min(map.rows - 1, bottom + 1),
    left: Math.max(0, left - 1),
    right: Math.min(map.cols - 1, right + 1)
  }
}

/** Every gridpoint visible from `spot`, by trying them all: the definition `makeSight` must match. */
export const visibleByBruteForce = (map: GameMap, spot: number, rule: SightRule = "allSpots"): Array<number> => {
  const out: Array<number> = []
  for (let at = 0; at < map.cells.length; at++) if (isVisible(map, spot, at, rule)) out.push(at)
  return out
}
