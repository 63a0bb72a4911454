import type { GameState } from "../core/state.js"
import { mapText } from "../core/map.js"

/**
 * What a watcher's page is sent, as JSON. The map comes once (`Hello`); each frame then
 * says who stands where and which piles are left: all the spectator's view adds to the
 * map. A frame is a few hundred bytes on any map, so watchers cost little to feed.
 */
export interface Hello {
  readonly mode: "live" | "replay"
  readonly rows: number
  readonly cols: number
  /** The map, NR lines of NC characters. */
  readonly map: string
}

export interface RosterEntry {
  readonly letter: string
  readonly name: string
  readonly purse: number
  /** Where the player stands (row * NC + column), or -1 once it has quit. */
  readonly cell: number
}

export interface Frame {
  /** Everyone who ever joined, in letter order. */
  readonly players: ReadonlyArray<RosterEntry>
  /** The gridpoints of the piles left. */
  readonly gold: ReadonlyArray<number>
  readonly remaining: number
  /** Pages watching now (live only). */
  readonly watchers?: number
  /** The game-over summary, once the game is over. */
  readonly summary?: string
}

export const helloOf = (state: GameState, mode: Hello["mode"]): Hello => ({
  mode,
  rows: state.map.rows,
  cols: state.map.cols,
  map: mapText(state.map).replace(/\n$/, "")
})

export const rosterOf = (state: GameState): ReadonlyArray<RosterEntry> =>
  state.players.map(({ active, letter, name, position, purse }) => ({ letter, name, purse, cell: active ? position : -1 }))

export const frameOf = (state: GameState, extra: { readonly watchers?: number; readonly summary?: string }): Frame => ({
  players: rosterOf(state),
  gold: [...state.gold.keys()],
  remaining: state.goldRemaining,
  ...extra
})

const encoder = new TextEncoder()

/** One Server-Sent Event. JSON has no raw line breaks, so the data fits on one `data:` line. */
export const sseEvent = (event: string, data: unknown): Uint8Array =>
  encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
