import type { GameMap } from "./map.js"
import type { RandomState } from "./random.js"
import type { Rules } from "./rules.js"
import type { Sight } from "./visibility.js"

/** Opaque key of a client, chosen by the shell (e.g. "127.0.0.1:5000"); the core only compares it. */
export type ClientId = string

/** Whose eyes a view is for: a player's index (0 = A) or the spectator. */
export type Viewer = number | "spectator"
export interface Player {
  readonly index: number
  readonly letter: string
  readonly name: string
  readonly client: ClientId
  readonly position: number
  readonly purse: number
  /** False once the player has quit: off the map, purse kept for the summary. */
  readonly active: boolean
  /** 1 where the player has seen the gridpoint. Replaced, never changed, when it grows. */
  readonly known: Uint8Array
}

export interface GameState {
  /** The generator every later draw (a player's spot) comes from: see `random.ts`. */
  readonly random: RandomState
  readonly rules: Rules
  readonly map: GameMap
  readonly sight: Sight
  /** Nuggets per pile, keyed by gridpoint. */
  readonly gold: ReadonlyMap<number, number>
  readonly goldRemaining: number
  /** Everyone who ever joined, in letter order. */
  readonly players: ReadonlyArray<Player>
  readonly spectator: ClientId | undefined
  readonly over: boolean
}

/** Why the server tells a client to quit; the words are the protocol's business. */
export type QuitReason = "PlayerQuit" | "SpectatorQuit" | "SpectatorReplaced" | "ShutDown" | "Silent"

/** What the server must tell a client, in order. A DISPLAY carries the viewer's current view. */
export type Notice =
  | { readonly _tag: "Ok"; readonly letter: string }
  | { readonly _tag: "Grid"; readonly rows: number; readonly cols: number }
  | { readonly _tag: "Gold"; readonly collected: number; readonly purse: number; readonly remaining: number }
  | { readonly _tag: "Display" }
  | { readonly _tag: "Quit"; readonly reason: QuitReason }
  | { readonly _tag: "GameOver" }

export interface Envelope {
  readonly to: ClientId
  readonly viewer: Viewer
  readonly notice: Notice
}

/** A player's walk in one transition: every spot it stood on, from where it was to where it is. */
export interface Walk {
  readonly player: number
  readonly path: ReadonlyArray<number>
}

export interface Theft {
  readonly thief: number
  readonly victim: number
  readonly nuggets: number
}

/**
 * What a transition changed on the map, so that views are brought up to date without
 * comparing states.
 */
export interface ChangeSet {
  /** Gridpoints whose occupant may have changed: players left or arrived, gold taken or dropped. */
  readonly cells: ReadonlyArray<number>
  /** Players who moved (the mover, and anyone swapped), with their paths. */
  readonly walks: ReadonlyArray<Walk>
  /** Players who arrived on the map. */
  readonly joined: ReadonlyArray<number>
  /** Players who left the map. */
  readonly left: ReadonlyArray<number>
  readonly thefts: ReadonlyArray<Theft>
}

export const noChanges: ChangeSet = { cells: [], walks: [], joined: [], left: [], thefts: [] }

/** One transition's result: the new state, what to send (in order), and what changed. */
export interface Transition {
  readonly state: GameState
  readonly notices: ReadonlyArray<Envelope>
  readonly changes: ChangeSet
}

/** What a client can ask of the server: the protocol's PLAY, SPECTATE and KEY. */
export type Request =
  | { readonly _tag: "Play"; readonly name: string }
  | { readonly _tag: "Spectate" }
  | { readonly _tag: "Key"; readonly key: string }

// ---- Looking things up ----

export const playerOf = (state: GameState, client: ClientId): Player | undefined => {
  for (const player of state.players) if (player.active && player.client === client) return player
  return undefined
}

export const playerAt = (state: GameState, cell: number): Player | undefined => playerOn(state.players, cell)

/** The active player of `players` on `cell`, if any. */
export const playerOn = (players: ReadonlyArray<Player>, cell: number): Player | undefined => {
  for (const player of players) if (player.active && player.position === cell) return player
  return undefined
}

/** Everyone who gets DISPLAYs now: active players, then the spectator. */
export const audience = (state: GameState): ReadonlyArray<{ readonly to: ClientId; readonly viewer: Viewer }> => {
  const out: Array<{ to: ClientId; viewer: Viewer }> = []
  for (const player of state.players) if (player.active) out.push({ to: player.client, viewer: player.index })
  if (state.spectator !== undefined) out.push({ to: state.spectator, viewer: "spectator" })
  return out
}

// ---- Making states and players ----
// Each is built as one object literal with its fields in one order, never by a spread: then
// every state, and every player, has one object shape, the code reading them on every key
// stays monomorphic, and no key pays for a spread (which V8 makes slowly, into a new shape).

/** `state` with `change` made. */
export const changedState = (state: GameState, change: Partial<GameState>): GameState => ({
  random: change.random ?? state.random,
  rules: state.rules,
  map: state.map,
  sight: state.sight,
  gold: change.gold ?? state.gold,
  goldRemaining: change.goldRemaining ?? state.goldRemaining,
  players: change.players ?? state.players,
  spectator: "spectator" in change ? change.spectator : state.spectator,
  over: change.over ?? state.over
})

/** A player as it is made: joined now, or changed (see `movedPlayer`, `leftPlayer`). */
export const makePlayer = (
  index: number,
  letter: string,
  name: string,
  client: ClientId,
  position: number,
  purse: number,
  active: boolean,
  known: Uint8Array
): Player => ({ index, letter, name, client, position, purse, active, known })

/** `player` where it now stands, with its purse and what it has seen. */
export const movedPlayer = (player: Player, position: number, purse: number, known: Uint8Array): Player =>
  makePlayer(player.index, player.letter, player.name, player.client, position, purse, player.active, known)

/** `player` off the map: its purse kept for the summary. */
export const leftPlayer = (player: Player): Player =>
  makePlayer(player.index, player.letter, player.name, player.client, player.position, player.purse, false, player.known)

// ---- Shared by the transitions ----

/** GAMEOVER for everyone watching, appended to `out`. */
export const gameOverAll = (state: GameState, out: Array<Envelope>): Array<Envelope> => {
  for (const { to, viewer } of audience(state)) out.push({ to, viewer, notice: { _tag: "GameOver" } })
  return out
}

/** What a player has seen, grown by what it sees now: a new array when it grows (see `Player.known`), else the same. */
export const withKnown = (known: Uint8Array, visible: ArrayLike<number>): Uint8Array => {
  for (let i = 0; i < visible.length; i++) {
    if (known[visible[i]!] === 0) {
      const grown = known.slice()
      for (let j = i; j < visible.length; j++) grown[visible[j]!] = 1
      return grown
    }
  }
  return known
}

/** Every player who ever joined, in letter order, with its purse: what the game-over summary lists. */
export const standings = (
  state: GameState
): ReadonlyArray<{ readonly letter: string; readonly name: string; readonly purse: number }> =>
  state.players.map(({ letter, name, purse }) => ({ letter, name, purse }))
