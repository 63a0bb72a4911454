import { Data, Effect, Either, Random } from "effect"
import * as C from "./constants.js"
import { type GameMap, isSpot } from "./map.js"
import { makeSight, type Sight, type SightRule } from "./visibility.js"

/** Opaque key of a client, chosen by the shell (e.g. "127.0.0.1:5000"); the core only compares it. */
export type ClientId = string

/** Whose eyes a DISPLAY is for: a player's index (0 = A) or the spectator. */
export type Viewer = number | "spectator"

export interface Rules {
  readonly maxPlayers: number
  readonly maxNameLength: number
  readonly goldTotal: number
  readonly goldMinPiles: number
  readonly goldMaxPiles: number
  readonly sight: SightRule
}

export const specRules: Rules = {
  maxPlayers: C.MaxPlayers,
  maxNameLength: C.MaxNameLength,
  goldTotal: C.GoldTotal,
  goldMinPiles: C.GoldMinNumPiles,
  goldMaxPiles: C.GoldMaxNumPiles,
  sight: "spec"
}

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

/** What the server must tell a client, in order. DISPLAY content is rendered per viewer. */
export type Notice =
  | { readonly _tag: "Ok"; readonly letter: string }
  | { readonly _tag: "Grid"; readonly rows: number; readonly cols: number }
  | { readonly _tag: "Gold"; readonly collected: number; readonly purse: number; readonly remaining: number }
  | { readonly _tag: "Display" }
  | { readonly _tag: "Quit"; readonly reason: string }
  | { readonly _tag: "GameOver" }

export interface Envelope {
  readonly to: ClientId
  readonly viewer: Viewer
  readonly notice: Notice
}

/** One transition's result: the new state and what to send, in order. */
export interface Step {
  readonly state: GameState
  readonly out: ReadonlyArray<Envelope>
}

// ---- Failures a client can cause ----

export class GameFull extends Data.TaggedError("GameFull")<{ readonly maxPlayers: number }> {
  override get message() {
    return `Sorry - the game is full; no more than ${this.maxPlayers} players can join.`
  }
}
export class EmptyName extends Data.TaggedError("EmptyName")<{}> {
  override get message() {
    return "Sorry - you must provide player's name."
  }
}
export class AlreadyJoined extends Data.TaggedError("AlreadyJoined")<{ readonly as: Viewer }> {
  override get message() {
    return this.as === "spectator"
      ? "you are already the spectator"
      : `you are already playing as ${C.PlayerLetters[this.as]}`
  }
}
export class NotJoined extends Data.TaggedError("NotJoined")<{}> {
  override get message() {
    return "you have not joined this game; send PLAY name or SPECTATE first"
  }
}
export class UnknownKeystroke extends Data.TaggedError("UnknownKeystroke")<{ readonly key: string }> {
  override get message() {
    return "unknown keystroke"
  }
}
export class GameIsOver extends Data.TaggedError("GameIsOver")<{}> {
  override get message() {
    return "the game is over"
  }
}
export class NoRoomLeft extends Data.TaggedError("NoRoomLeft")<{}> {
  override get message() {
    return "Sorry - there is no empty room spot left to drop a new player on."
  }
}

export type JoinError = GameFull | EmptyName | AlreadyJoined | GameIsOver | NoRoomLeft
export type SpectateError = AlreadyJoined | GameIsOver
export type KeyError = UnknownKeystroke | NotJoined | GameIsOver

// ---- Setting up ----

/**
 * A new game on `map`: piles in [min, max], each at least one nugget, on distinct random
 * room spots. All randomness comes from Effect's `Random` service, so
 * `Effect.withRandom(Random.make(seed))` makes a whole game reproducible.
 */
export const newGame = (map: GameMap, rules: Rules = specRules): Effect.Effect<GameState> =>
  Effect.gen(function*() {
    const piles = yield* Random.nextIntBetween(rules.goldMinPiles, rules.goldMaxPiles + 1)
    const sizes = new Array<number>(piles).fill(1)
    for (let nugget = piles; nugget < rules.goldTotal; nugget++) sizes[yield* Random.nextIntBetween(0, piles)]! += 1
    const spots = Array.from(map.roomSpots)
    const gold = new Map<number, number>()
    for (let pile = 0; pile < piles; pile++) {
      // A partial Fisher-Yates shuffle: the first `piles` entries become distinct random spots.
      const pick = yield* Random.nextIntBetween(pile, spots.length)
      ;[spots[pile], spots[pick]] = [spots[pick]!, spots[pile]!]
      gold.set(spots[pile]!, sizes[pile]!)
    }
    return {
      rules,
      map,
      sight: makeSight(map, rules.sight),
      gold,
      goldRemaining: rules.goldTotal,
      players: [],
      spectator: undefined,
      over: false
    }
  })

/** Truncates to the maximum length and replaces each char that is neither graphic nor blank by `_`. */
export const sanitizeName = (raw: string, maxLength: number = C.MaxNameLength): string =>
  Array.from(raw).slice(0, maxLength).map((ch) => (/^[\x21-\x7e \t]$/.test(ch) ? ch : "_")).join("")

// ---- Looking things up ----

export const playerOf = (state: GameState, client: ClientId): Player | undefined =>
  state.players.find((player) => player.active && player.client === client)

export const playerAt = (state: GameState, cell: number): Player | undefined =>
  state.players.find((player) => player.active && player.position === cell)

/** Everyone who gets DISPLAYs now: active players, then the spectator. */
export const audience = (state: GameState): ReadonlyArray<{ readonly to: ClientId; readonly viewer: Viewer }> => {
  const out: Array<{ to: ClientId; viewer: Viewer }> = []
  for (const player of state.players) if (player.active) out.push({ to: player.client, viewer: player.index })
  if (state.spectator !== undefined) out.push({ to: state.spectator, viewer: "spectator" })
  return out
}

const display: Notice = { _tag: "Display" }

/** A DISPLAY for everyone watching, appended to `out`: every keystroke does this, so it is a plain loop. */
const displayAll = (state: GameState, out: Array<Envelope>, except?: ClientId): Array<Envelope> => {
  for (const player of state.players) {
    if (player.active && player.client !== except) out.push({ to: player.client, viewer: player.index, notice: display })
  }
  if (state.spectator !== undefined && state.spectator !== except) {
    out.push({ to: state.spectator, viewer: "spectator", notice: display })
  }
  return out
}

const withKnown = (known: Uint8Array, visible: ArrayLike<number>): Uint8Array => {
  for (let i = 0; i < visible.length; i++) {
    if (known[visible[i]!] === 0) {
      const grown = known.slice()
      for (let j = i; j < visible.length; j++) grown[visible[j]!] = 1
      return grown
    }
  }
  return known
}

// ---- Transitions ----

/** `PLAY name`: the next letter, dropped on a random empty room spot. */
export const join = (
  state: GameState,
  client: ClientId,
  rawName: string
): Effect.Effect<Step, JoinError> =>
  Effect.gen(function*() {
    if (state.over) return yield* new GameIsOver()
    const existing = playerOf(state, client)
    if (existing) return yield* new AlreadyJoined({ as: existing.index })
    if (state.spectator === client) return yield* new AlreadyJoined({ as: "spectator" })
    const name = sanitizeName(rawName, state.rules.maxNameLength)
    if (name.trim().length === 0) return yield* new EmptyName()
    if (state.players.length >= state.rules.maxPlayers) {
      return yield* new GameFull({ maxPlayers: state.rules.maxPlayers })
    }
    const empty = Array.from(state.map.roomSpots).filter((spot) => !state.gold.has(spot) && !playerAt(state, spot))
    if (empty.length === 0) return yield* new NoRoomLeft()
    const position = empty[yield* Random.nextIntBetween(0, empty.length)]!
    const index = state.players.length
    const player: Player = {
      index,
      letter: C.PlayerLetters[index]!,
      name,
      client,
      position,
      purse: 0,
      active: true,
      known: withKnown(new Uint8Array(state.map.cells.length), state.sight.visibleFrom(position))
    }
    const next: GameState = { ...state, players: [...state.players, player] }
    const out: Array<Envelope> = [
      { to: client, viewer: index, notice: { _tag: "Ok", letter: player.letter } },
      ...welcome(next, client, index)
    ]
    return { state: next, out: displayAll(next, out, client) }
  })

/**
 * `SPECTATE`: the newcomer replaces any spectator, who is told to quit. Transitions that
 * need no randomness return an Either, which is an Effect that needs no fiber to run.
 */
export const spectate = (state: GameState, client: ClientId): Either.Either<Step, SpectateError> => {
  if (state.over) return Either.left(new GameIsOver())
  const existing = playerOf(state, client)
  if (existing) return Either.left(new AlreadyJoined({ as: existing.index }))
  const out: Array<Envelope> = []
  if (state.spectator !== undefined && state.spectator !== client) {
    out.push({
      to: state.spectator,
      viewer: "spectator",
      notice: { _tag: "Quit", reason: "You have been replaced by a new spectator." }
    })
  }
  const next: GameState = { ...state, spectator: client }
  out.push(...welcome(next, client, "spectator"))
  return Either.right({ state: next, out })
}

const welcome = (state: GameState, to: ClientId, viewer: Viewer): Array<Envelope> => [
  { to, viewer, notice: { _tag: "Grid", rows: state.map.rows, cols: state.map.cols } },
  { to, viewer, notice: { _tag: "Gold", collected: 0, purse: 0, remaining: state.goldRemaining } },
  { to, viewer, notice: display }
]

const directions: Readonly<Record<string, readonly [number, number]>> = {
  h: [0, -1],
  l: [0, 1],
  j: [1, 0],
  k: [-1, 0],
  y: [-1, -1],
  u: [-1, 1],
  b: [1, -1],
  n: [1, 1]
}

/** `KEY k`: a move (lower case one step, capital as far as possible) or `Q` to quit. */
export const pressKey = (state: GameState, client: ClientId, key: string): Either.Either<Step, KeyError> => {
  if (state.over) return Either.left(new GameIsOver())
  if (state.spectator === client) {
    return key === "Q"
      ? Either.right(spectatorQuits(state))
      : Either.left(new UnknownKeystroke({ key }))
  }
  const player = playerOf(state, client)
  if (!player) return Either.left(new NotJoined())
  if (key === "Q") return Either.right(playerQuits(state, player))
  const lower = key.toLowerCase()
  const direction = key.length === 1 ? directions[lower] : undefined
  if (!direction) return Either.left(new UnknownKeystroke({ key }))
  return Either.right(move(state, player.index, direction, key !== lower))
}

const spectatorQuits = (state: GameState): Step => ({
  state: { ...state, spectator: undefined },
  out: [{ to: state.spectator!, viewer: "spectator", notice: { _tag: "Quit", reason: "Thanks for watching!" } }]
})

const playerQuits = (state: GameState, player: Player): Step => {
  const players = state.players.slice()
  players[player.index] = { ...player, active: false }
  const next: GameState = { ...state, players }
  return {
    state: next,
    out: displayAll(next, [
      { to: player.client, viewer: player.index, notice: { _tag: "Quit", reason: "Thanks for playing!" } }
    ])
  }
}

const move = (
  state: GameState,
  moverIndex: number,
  [dRow, dCol]: readonly [number, number],
  repeat: boolean
): Step => {
  const { map, sight } = state
  const players = state.players.slice()
  let gold: Map<number, number> | undefined
  let collected = 0
  let moved = false
  for (;;) {
    const mover = players[moverIndex]!
    const row = Math.floor(mover.position / map.cols) + dRow
    const col = (mover.position % map.cols) + dCol
    if (row < 0 || col < 0 || row >= map.rows || col >= map.cols) break
    const target = row * map.cols + col
    if (!isSpot(map.cells[target]!)) break
    moved = true
    const other = players.find((p) => p.active && p.position === target)
    if (other) {
      players[other.index] = {
        ...other,
        position: mover.position,
        known: withKnown(other.known, sight.visibleFrom(mover.position))
      }
    }
    const pile = (gold ?? state.gold).get(target) ?? 0
    if (pile > 0) {
      gold ??= new Map(state.gold)
      gold.delete(target)
      collected += pile
    }
    players[moverIndex] = {
      ...mover,
      position: target,
      purse: mover.purse + pile,
      known: withKnown(mover.known, sight.visibleFrom(target))
    }
    if (!repeat) break
  }
  if (!moved) return { state, out: [] }
  const goldRemaining = state.goldRemaining - collected
  const over = collected > 0 && goldRemaining === 0
  const next: GameState = { ...state, players, gold: gold ?? state.gold, goldRemaining, over }
  const out = displayAll(next, collected > 0 ? goldNotices(next, moverIndex, collected) : [])
  if (next.over) for (const { to, viewer } of audience(next)) out.push({ to, viewer, notice: { _tag: "GameOver" } })
  return { state: next, out }
}

const goldNotices = (state: GameState, collectorIndex: number, collected: number): Array<Envelope> =>
  audience(state).map(({ to, viewer }) => {
    const purse = viewer === "spectator" ? 0 : state.players[viewer]!.purse
    const notice: Notice = {
      _tag: "Gold",
      collected: viewer === collectorIndex ? collected : 0,
      purse,
      remaining: state.goldRemaining
    }
    return { to, viewer, notice }
  })

/** The server is going away: every client is told to quit, and the game is over. */
export const shutDown = (state: GameState, reason: string): Step => ({
  state: { ...state, over: true },
  out: audience(state).map(({ to, viewer }) => ({ to, viewer, notice: { _tag: "Quit", reason } }))
})
