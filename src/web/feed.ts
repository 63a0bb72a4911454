/**
 * What a watcher's page is sent (`/watch`, Server-Sent Events of JSON): the contract
 * between the server and the page, which imports these types. First a `hello`: the map
 * and, for a live game, nothing more (`LiveHello`), each `snapshot` then says who stands
 * where and which piles are left, all the spectator's view adds to the map; for a
 * recording, every move at once (`ReplayHello`), which the page plays at its own pace.
 */

import type { GameEnd } from "../protocol/endings.js"

export const FeedEvent = { hello: "hello", snapshot: "snapshot" } as const

export interface MapText {
  readonly rows: number
  readonly cols: number
  /** The map, NR lines of NC characters. */
  readonly map: string
}

export interface LiveHello extends MapText {
  readonly mode: "live"
}

export interface RosterEntry {
  readonly letter: string
  readonly name: string
  readonly purse: number
  /** Where the player stands (row * NC + column), or -1 once it has quit. */
  readonly cell: number
}

/** A live game as it stands: a few hundred bytes on any map, so watchers cost little to feed. */
export interface Snapshot {
  /** Everyone who ever joined, in letter order. */
  readonly players: ReadonlyArray<RosterEntry>
  /** The gridpoints of the piles left. */
  readonly gold: ReadonlyArray<number>
  readonly remaining: number
  /** Pages watching now (live only). */
  readonly watchers?: number
  /** Set once the game has ended, how (see `protocol/endings.ts`): `players` then holds the final purses. */
  readonly end?: GameEnd
}

/**
 * One move of a replay: what changed is sent, the rest carries over from the move before,
 * so a long game stays a small download.
 */
export interface ReplayMove {
  /** Milliseconds after the recording began. */
  readonly t: number
  readonly m: number
  /** Where each player who joined so far stands, by letter order; -1 once it quit. */
  readonly p: ReadonlyArray<number>
  /** The piles left, when they changed. */
  readonly g?: ReadonlyArray<number>
  /** The purses, when they changed. */
  readonly $?: ReadonlyArray<number>
  /** The nuggets left, when they changed. */
  readonly r?: number
  /** Set on the moves after the game ended, how. */
  readonly end?: GameEnd
}

export interface ReplayHello extends MapText {
  readonly mode: "replay"
  readonly names: ReadonlyArray<{ readonly letter: string; readonly name: string }>
  readonly moves: number
  /** Every move, in order. */
  readonly steps: ReadonlyArray<ReplayMove>
}

export type Hello = LiveHello | ReplayHello
