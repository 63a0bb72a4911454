import { Effect, type Random } from "effect"
import { PassageSpot, Rock, RoomSpot } from "../core/map.js"
import { isVisible } from "../core/visibility.js"
import type { ServerMessage } from "../protocol/messages.js"
import { firstStepOnGrid, moves, walkable } from "./path.js"

/**
 * A bot's mind, built only from what the server tells it. `observe` folds in each message
 * cheaply (a bot hears every other player's move too); the work of understanding a
 * DISPLAY is left to `decide`, which runs once per key.
 */

export const strategies = ["random", "greedy"] as const
export type Strategy = typeof strategies[number]

export type Ending =
  | { readonly _tag: "GameOver"; readonly summary: string }
  | { readonly _tag: "Quit"; readonly reason: string }
  | { readonly _tag: "Refused"; readonly reason: string }

export interface Brain {
  readonly strategy: Strategy
  readonly letter: string | undefined
  readonly purse: number
  readonly remaining: number | undefined
  readonly view: View | undefined
  readonly memory: Memory | undefined
  readonly ended: Ending | undefined
}

/** The latest DISPLAY, kept as the bytes that came (decoding 64 KB per message adds up). */
export interface View {
  /** The grid: `rows` lines of `cols` chars, each ending in a newline. */
  readonly grid: Uint8Array
  readonly rows: number
  readonly cols: number
  /** Where '@' is, as a cell index (row * cols + col), or -1. */
  readonly position: number
}

/** What a greedy bot remembers of the map. */
export interface Memory {
  /** The grid last folded in. */
  readonly grid: Uint8Array
  /**
   * Map chars seen per cell; rock where nothing is known, `?` for a spot seen only with a
   * player on it, whose kind (room or passage) is unknown.
   */
  readonly terrain: Uint8Array
  /** 1 where a blank is known to be solid rock: next to a cell the bot stood on. */
  readonly rock: Uint8Array
  /** Cells where gold was seen and not yet seen gone. */
  readonly gold: ReadonlySet<number>
}

export const newBrain = (strategy: Strategy): Brain => ({
  strategy,
  letter: undefined,
  purse: 0,
  remaining: undefined,
  view: undefined,
  memory: undefined,
  ended: undefined
})

export const observe = (brain: Brain, message: ServerMessage): Brain => {
  if (brain.ended) return brain
  switch (message._tag) {
    case "Ok":
      return { ...brain, letter: message.letter }
    case "Gold":
      return { ...brain, purse: message.purse, remaining: message.remaining }
    case "Display":
      return observeDisplay(brain, encoder.encode(message.grid))
    case "Quit":
      return { ...brain, ended: { _tag: "Quit", reason: message.reason } }
    case "GameOver":
      return { ...brain, ended: { _tag: "GameOver", summary: message.summary } }
    case "No":
    case "Error":
      // Before it has a letter, the only thing the server can be saying no to is the PLAY.
      return brain.letter === undefined ? { ...brain, ended: { _tag: "Refused", reason: message.reason } } : brain
    case "Grid":
      return brain
  }
}

const encoder = new TextEncoder()
const Newline = 0x0a

/** A DISPLAY's grid (the bytes after "DISPLAY\n"), straight from the datagram. */
export const observeDisplay = (brain: Brain, grid: Uint8Array): Brain => {
  if (brain.ended) return brain
  const cols = grid.indexOf(Newline)
  // A grid that is not NR lines of NC chars cannot be walked on: keep the last good one.
  if (cols <= 0 || grid.length % (cols + 1) !== 0) return brain
  const at = grid.indexOf(Self)
  const position = at === -1 ? -1 : at - Math.floor(at / (cols + 1))
  return { ...brain, view: { grid, rows: grid.length / (cols + 1), cols, position } }
}

export interface Decision {
  readonly brain: Brain
  /** The key to press, or undefined when there is nothing to act on yet. */
  readonly key: string | undefined
}

/** The next key: a random possible move, or (greedy) a step toward gold or the unknown. */
export const decide = (brain: Brain, rng: Random.Random): Effect.Effect<Decision> =>
  Effect.suspend(() => {
    const view = brain.view
    if (brain.ended || view === undefined || view.position === -1) return Effect.succeed({ brain, key: undefined })
    if (brain.strategy === "greedy") {
      const memory = remember(brain.memory, view)
      const { cols, position, rows } = view
      const key = towardGold(memory, rows, cols, position) ?? towardUnknown(memory, rows, cols, position)
      const next = memory === brain.memory ? brain : { ...brain, memory }
      if (key !== undefined) return Effect.succeed({ brain: next, key })
      return randomMove(next, rng)
    }
    return randomMove(brain, rng)
  })

/** Move keys that would move from where the bot stands on its latest grid. */
export const possibleMoves = (brain: Brain): Array<string> => {
  if (brain.view === undefined || brain.view.position === -1) return []
  const { cols, grid, position, rows } = brain.view
  const row = Math.floor(position / cols)
  const col = position - row * cols
  return moves.filter(([, dRow, dCol]) => {
    const r = row + dRow
    const c = col + dCol
    return r >= 0 && c >= 0 && r < rows && c < cols && walkable(String.fromCharCode(grid[r * (cols + 1) + c]!))
  }).map(([key]) => key)
}

const randomMove = (brain: Brain, rng: Random.Random): Effect.Effect<Decision> => {
  const possible = possibleMoves(brain)
  // Hemmed in on every side cannot happen on a valid map; still press something.
  const choices = possible.length > 0 ? possible : moves.map(([key]) => key)
  return rng.nextIntBetween(0, choices.length).pipe(Effect.map((i) => ({ brain, key: choices[i]! })))
}

const Unsure = 0x3f // '?': a spot seen only under a player
const Self = 0x40 // '@'
const Gold = 0x2a // '*'
const LetterA = 0x41
const LetterZ = 0x5a

const isWalkable = (ch: number) => ch === RoomSpot || ch === PassageSpot || ch === Unsure

/** Folds `grid` into what the bot remembers; the same memory if that grid is in it already. */
export const remember = (memory: Memory | undefined, view: View): Memory => {
  const { cols, grid, position, rows } = view
  if (memory?.grid === grid) return memory
  const size = rows * cols
  const fits = memory !== undefined && memory.terrain.length === size
  const terrain = fits ? memory.terrain.slice() : new Uint8Array(size).fill(Rock)
  const rock = fits ? memory.rock.slice() : new Uint8Array(size)
  const gold = new Set(fits ? memory.gold : [])
  for (let row = 0, cell = 0; row < rows; row++) {
    const start = row * (cols + 1)
    for (let col = 0; col < cols; col++, cell++) {
      const ch = grid[start + col]!
      if (ch === Rock) continue
      if (ch === Gold) {
        terrain[cell] = RoomSpot
        gold.add(cell)
      } else if (ch === Self || (ch >= LetterA && ch <= LetterZ)) {
        if (terrain[cell] === Rock) terrain[cell] = Unsure
        // Whoever stands there has picked the gold up.
        gold.delete(cell)
      } else {
        terrain[cell] = ch
      }
    }
  }
  // Standing here shows every neighbour, so a blank beside it is rock, not the unknown.
  const row = Math.floor(position / cols)
  const col = position - row * cols
  for (const [, dRow, dCol] of moves) {
    const r = row + dRow
    const c = col + dCol
    if (r >= 0 && c >= 0 && r < rows && c < cols) rock[r * cols + c] = 1
  }
  // Gold not drawn where the bot surely sees is gone. "Surely": sight through room spots
  // it knows, the narrowest rule, so out-of-sight gold is never forgotten by mistake.
  const known = { rows, cols, cells: terrain, roomSpots: new Int32Array(0) }
  for (const cell of gold) {
    const ch = grid[Math.floor(cell / cols) * (cols + 1) + (cell % cols)]
    if (ch !== Gold && isVisible(known, position, cell, "roomSpotsOnly")) gold.delete(cell)
  }
  return { grid, terrain, rock, gold }
}

const towardGold = (memory: Memory, rows: number, cols: number, position: number): string | undefined =>
  memory.gold.size === 0
    ? undefined
    : firstStepOnGrid(rows, cols, position, (cell) => isWalkable(memory.terrain[cell]!), (cell) => memory.gold.has(cell))

/** A step toward the nearest known spot beside a blank that may not be rock. */
const towardUnknown = (memory: Memory, rows: number, cols: number, position: number): string | undefined => {
  const { rock, terrain } = memory
  const isFrontier = (cell: number) => {
    const row = Math.floor(cell / cols)
    const col = cell - row * cols
    for (const [, dRow, dCol] of moves) {
      const r = row + dRow
      const c = col + dCol
      if (r < 0 || c < 0 || r >= rows || c >= cols) continue
      const next = r * cols + c
      if (terrain[next] === Rock && rock[next] === 0) return true
    }
    return false
  }
  return firstStepOnGrid(rows, cols, position, (cell) => isWalkable(terrain[cell]!), isFrontier)
}
