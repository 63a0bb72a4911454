import type { GameState } from "../core/state.js"
import { mapText } from "../core/map.js"
import { endOf } from "../protocol/endings.js"
import type { MapText, RosterEntry, Snapshot } from "./feed.js"

/** The server's side of the feed: snapshots of the game's state (see `feed.ts`). */

export const mapOf = (state: GameState): MapText => ({
  rows: state.map.rows,
  cols: state.map.cols,
  map: mapText(state.map).replace(/\n$/, "")
})

export const rosterOf = (state: GameState): ReadonlyArray<RosterEntry> =>
  state.players.map(({ active, letter, name, position, purse }) => ({ letter, name, purse, cell: active ? position : -1 }))

export const snapshotOf = (state: GameState, watchers?: number): Snapshot => ({
  players: rosterOf(state),
  gold: [...state.gold.keys()],
  remaining: state.goldRemaining,
  ...(watchers === undefined ? {} : { watchers }),
  ...(state.over ? { end: endOf(state.goldRemaining) } : {})
})
