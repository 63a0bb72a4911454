import { Effect, type Random } from "effect"
import { MoveDirections, MoveKeys } from "../core/constants.js"
import { PassageSpot, Rock, RoomSpot, stepFrom } from "../core/map.js"
import { firstStepOnGrid } from "../core/path.js"
import { isVisible } from "../core/visibility.js"
import { canStepOn } from "../protocol/display.js"
import { type GameReport, newReport, readDatagram } from "../protocol/reader.js"

/**
 * A bot's mind, built only from what the server tells it, through the same protocol
 * reader as the terminal client. Reading a datagram is cheap (a bot hears every other
 * player's move too); the work of understanding a view is left to `decide`, once per key.
 */

export const strategies = ["random", "greedy"] as const
export type Strategy = typeof strategies[number]

export interface Brain {
  readonly strategy: Strategy
  readonly report: GameReport
  readonly memory: Memory | undefined
}

/** What a greedy bot remembers of the map. */
export interface Memory {
  /** The view last folded in. */
  readonly view: ReadonlyArray<string>
  /**
   * Map chars seen per cell; rock where nothing is known, `?` for a spot seen only with a
   * player on it, whose kind (room or passage) is unknown.
   */
  readonly terrain: Uint8Array
  /** 1 where a blank is known to be solid rock: next to a cell the bot stood on. */
  readonly rock: Uint8Array
  /** Cells where gold was seen and not yet seen gone. */
  readonly gold: ReadonlySet<number>
  /** 1 where the bot pressed a key to step from beside a blank onto it, and did not move: rock for sure. */
  readonly tried: Uint8Array
  /** Such a step, pressed and not yet seen through: from where, onto which blank. */
  readonly aim: { readonly from: number; readonly to: number } | undefined
}

export const newBrain = (strategy: Strategy): Brain => ({ strategy, report: newReport("player"), memory: undefined })

export const hear = (brain: Brain, data: Uint8Array | string): Brain => ({
  ...brain,
  report: readDatagram(brain.report, data)
})

export interface Decision {
  readonly brain: Brain
  /** The key to press, or undefined when there is nothing to act on yet. */
  readonly key: string | undefined
}

/**
 * The next key: a random possible move, or (greedy) a step toward gold or the unknown. A
 * view that does not show the bot (gold, or another player, drawn over it) gets a random
 * move too: once it moves, the next view shows it again.
 */
export const decide = (brain: Brain, rng: Random.Random): Effect.Effect<Decision> =>
  Effect.suspend(() => {
    const { ending, position, view } = brain.report
    if (ending || view === undefined) return Effect.succeed({ brain, key: undefined })
    if (position === undefined) return randomMove(brain, rng)
    if (brain.strategy === "greedy") {
      const rows = view.length
      const cols = view[0]!.length
      const at = position.row * cols + position.col
      let memory = settleAim(remember(brain.memory, view, at), at)
      let key = towardGold(memory, rows, cols, at) ?? towardUnknown(memory, rows, cols, at)
      if (key === undefined) {
        key = towardUntried(memory, rows, cols, at)
        const onto = key === undefined ? -1 : stepFrom(rows, cols, at, MoveDirections[key]!)
        if (onto >= 0 && memory.terrain[onto] === Rock) memory = { ...memory, aim: { from: at, to: onto } }
      }
      const next = memory === brain.memory ? brain : { ...brain, memory }
      if (key !== undefined) return Effect.succeed({ brain: next, key })
      return randomMove(next, rng)
    }
    return randomMove(brain, rng)
  })

/** Move keys that would move from where the bot stands on its latest view. */
export const possibleMoves = (brain: Brain): Array<string> => {
  const { position, view } = brain.report
  if (view === undefined || position === undefined) return []
  return MoveKeys.filter((key) => {
    const [dRow, dCol] = MoveDirections[key]!
    const char = view[position.row + dRow]?.[position.col + dCol]
    return char !== undefined && canStepOn(char)
  })
}

const randomMove = (brain: Brain, rng: Random.Random): Effect.Effect<Decision> => {
  const possible = possibleMoves(brain)
  // Hemmed in on every side cannot happen on a valid map, and nowhere to be seen tells nothing: still press something.
  const choices = possible.length > 0 ? possible : MoveKeys
  return rng.nextIntBetween(0, choices.length).pipe(Effect.map((i) => ({ brain, key: choices[i]! })))
}

const Unsure = 0x3f // '?': a spot seen only under a player
const Self = 0x40 // '@'
const Gold = 0x2a // '*'
const LetterA = 0x41
const LetterZ = 0x5a

const isWalkable = (ch: number) => ch === RoomSpot || ch === PassageSpot || ch === Unsure

/** Folds `view` into what the bot remembers; the same memory if that view is in it already. */
export const remember = (memory: Memory | undefined, view: ReadonlyArray<string>, position: number): Memory => {
  if (memory?.view === view) return memory
  const rows = view.length
  const cols = view[0]!.length
  const size = rows * cols
  const fits = memory !== undefined && memory.terrain.length === size
  const terrain = fits ? memory.terrain.slice() : new Uint8Array(size).fill(Rock)
  const rock = fits ? memory.rock.slice() : new Uint8Array(size)
  const tried = fits ? memory.tried : new Uint8Array(size)
  const gold = new Set(fits ? memory.gold : [])
  for (let row = 0, cell = 0; row < rows; row++) {
    const line = view[row]!
    for (let col = 0; col < cols; col++, cell++) {
      const ch = line.charCodeAt(col)
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
  for (const key of MoveKeys) {
    const next = stepFrom(rows, cols, position, MoveDirections[key]!)
    if (next >= 0) rock[next] = 1
  }
  // Gold not drawn where the bot surely sees is gone. "Surely": sight through room spots
  // it knows, the narrowest rule, so out-of-sight gold is never forgotten by mistake.
  const known = { rows, cols, cells: terrain, roomSpots: new Int32Array(0) }
  for (const cell of gold) {
    const ch = view[Math.floor(cell / cols)]!.charCodeAt(cell % cols)
    if (ch !== Gold && isVisible(known, position, cell, "roomSpotsOnly")) gold.delete(cell)
  }
  return { view, terrain, rock, gold, tried, aim: fits ? memory.aim : undefined }
}

/** The step into a blank the last key tried: still where it was, the bot knows that blank is rock. */
const settleAim = (memory: Memory, position: number): Memory => {
  const aim = memory.aim
  if (aim === undefined) return memory
  if (position !== aim.from) return { ...memory, aim: undefined }
  const tried = memory.tried.slice()
  tried[aim.to] = 1
  return { ...memory, tried, aim: undefined }
}

const towardGold = (memory: Memory, rows: number, cols: number, position: number): string | undefined =>
  memory.gold.size === 0
    ? undefined
    : firstStepOnGrid(rows, cols, position, (cell) => isWalkable(memory.terrain[cell]!), (cell) => memory.gold.has(cell))

const isWall = (ch: number) => ch === 0x2d || ch === 0x7c || ch === 0x2b // '-' '|' '+'

/**
 * With no gold known and nothing left to explore, a step onto the nearest blank beside a
 * spot that the bot has not tried to step onto, first those beside a wall (a room behind
 * a doorway). Standing beside a blank shows it as rock on a server that follows the
 * spec's sight, but some servers show nothing of a room from its doorway: a room there is
 * found only by stepping in.
 */
const towardUntried = (memory: Memory, rows: number, cols: number, position: number): string | undefined => {
  const { terrain, tried } = memory
  const untried = (cell: number) => terrain[cell] === Rock && tried[cell] === 0
  const byWall = (cell: number) =>
    MoveKeys.some((key) => {
      const next = stepFrom(rows, cols, cell, MoveDirections[key]!)
      return next >= 0 && isWall(terrain[next]!)
    })
  for (const goal of [(cell: number) => untried(cell) && byWall(cell), untried]) {
    const key = firstStepOnGrid(rows, cols, position, (cell) => isWalkable(terrain[cell]!) || goal(cell), goal)
    if (key !== undefined) return key
  }
  return undefined
}

/** A step toward the nearest known spot beside a blank that may not be rock. */
const towardUnknown = (memory: Memory, rows: number, cols: number, position: number): string | undefined => {
  const { rock, terrain } = memory
  const isFrontier = (cell: number) =>
    MoveKeys.some((key) => {
      const next = stepFrom(rows, cols, cell, MoveDirections[key]!)
      return next >= 0 && terrain[next] === Rock && rock[next] === 0
    })
  return firstStepOnGrid(rows, cols, position, (cell) => isWalkable(terrain[cell]!), isFrontier)
}
