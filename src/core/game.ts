import { Data, Effect, Either, Random } from "effect"
import * as C from "./constants.js"
import { type GameMap, isSpot } from "./map.js"
import { makeSight, type Sight, type SightRule } from "./visibility.js"

/** Opaque key of a client, chosen by the shell (e.g. "127.0.0.1:5000"); the core only compares it. */
export type ClientId = string

/** Whose eyes a view is for: a player's index (0 = A) or the spectator. */
export type Viewer = number | "spectator"

/**
 * `classic`: the requirements spec. `steal`: moving onto another player also takes 10% of
 * its purse, rounded down.
 */
export type Variant = "classic" | "steal"
export const variants: ReadonlyArray<Variant> = ["classic", "steal"]

export interface Rules {
  readonly maxPlayers: number
  readonly maxNameLength: number
  readonly goldTotal: number
  readonly goldMinPiles: number
  readonly goldMaxPiles: number
  readonly sight: SightRule
  readonly variant: Variant
}

export const specRules: Rules = {
  maxPlayers: C.MaxPlayers,
  maxNameLength: C.MaxNameLength,
  goldTotal: C.GoldTotal,
  goldMinPiles: C.GoldMinNumPiles,
  goldMaxPiles: C.GoldMaxNumPiles,
  sight: "spec",
  variant: "classic"
}

/** The later CS50 servers' reading of the rules: sight passes through room spots only. */
export const cs50Rules: Rules = { ...specRules, sight: "roomSpotsOnly" }

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

/** Why the server tells a client to quit; the words are the protocol's business. */
export type QuitReason = "PlayerQuit" | "SpectatorQuit" | "SpectatorReplaced" | "ShutDown"

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

// ---- Refusals a client can cause (their wording belongs to the protocol) ----

export class GameFull extends Data.TaggedError("GameFull")<{ readonly maxPlayers: number }> {}
export class EmptyName extends Data.TaggedError("EmptyName")<{}> {}
export class AlreadyJoined extends Data.TaggedError("AlreadyJoined")<{ readonly as: Viewer }> {}
export class NotJoined extends Data.TaggedError("NotJoined")<{}> {}
export class UnknownKeystroke extends Data.TaggedError("UnknownKeystroke")<{ readonly key: string }> {}
export class GameIsOver extends Data.TaggedError("GameIsOver")<{}> {}
export class NoRoomLeft extends Data.TaggedError("NoRoomLeft")<{}> {}

export type PlayRefusal = GameFull | EmptyName | AlreadyJoined | GameIsOver | NoRoomLeft
export type SpectateRefusal = AlreadyJoined | GameIsOver
export type KeyRefusal = UnknownKeystroke | NotJoined | GameIsOver
export type Refusal = PlayRefusal | SpectateRefusal | KeyRefusal

// ---- Setting up ----

/**
 * A new game on `map`: piles in [min, max] (fewer where room spots are few), each at least
 * one nugget, on distinct random room spots. All randomness comes from Effect's `Random` service, so
 * `Effect.withRandom(Random.make(seed))` makes a whole game reproducible.
 */
export const newGame = (map: GameMap, rules: Rules = specRules): Effect.Effect<GameState> =>
  Effect.gen(function*() {
    // A map with few room spots gets fewer piles, so that players still find room.
    const mostPiles = Math.max(1, Math.min(rules.goldMaxPiles, map.roomSpots.length - rules.maxPlayers))
    const piles = yield* Random.nextIntBetween(Math.min(rules.goldMinPiles, mostPiles), mostPiles + 1)
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
export const addPlayer = (
  state: GameState,
  client: ClientId,
  rawName: string
): Effect.Effect<Transition, PlayRefusal> =>
  Effect.gen(function*() {
    if (state.over) return yield* new GameIsOver()
    const existing = playerOf(state, client)
    // The same PLAY again: its answer was lost on the way, so it is given again.
    if (existing) return welcomeAgain(state, existing.client, existing.index)
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
    const notices: Array<Envelope> = [
      { to: client, viewer: index, notice: { _tag: "Ok", letter: player.letter } },
      ...welcome(next, client, index)
    ]
    return {
      state: next,
      notices: displayAll(next, notices, client),
      changes: { ...noChanges, cells: [position], joined: [index] }
    }
  })

/**
 * `SPECTATE`: the newcomer replaces any spectator, who is told to quit. Transitions that
 * need no randomness return an Either, which is an Effect that needs no fiber to run.
 */
export const addSpectator = (state: GameState, client: ClientId): Either.Either<Transition, SpectateRefusal> => {
  if (state.over) return Either.left(new GameIsOver())
  const existing = playerOf(state, client)
  if (existing) return Either.left(new AlreadyJoined({ as: existing.index }))
  if (state.spectator === client) return Either.right(welcomeAgain(state, client, "spectator"))
  const notices: Array<Envelope> = []
  if (state.spectator !== undefined) {
    notices.push({ to: state.spectator, viewer: "spectator", notice: { _tag: "Quit", reason: "SpectatorReplaced" } })
  }
  const next: GameState = { ...state, spectator: client }
  notices.push(...welcome(next, client, "spectator"))
  return Either.right({ state: next, notices, changes: noChanges })
}

/** A client that joined already is told again what it was told then, with its purse now. */
const welcomeAgain = (state: GameState, to: ClientId, viewer: Viewer): Transition => {
  const notices = welcome(state, to, viewer)
  const gold = notices[1]!
  const purse = viewer === "spectator" ? 0 : state.players[viewer]!.purse
  notices[1] = { ...gold, notice: { _tag: "Gold", collected: 0, purse, remaining: state.goldRemaining } }
  if (viewer !== "spectator") notices.unshift({ to, viewer, notice: { _tag: "Ok", letter: C.PlayerLetters[viewer]! } })
  return { state, notices, changes: noChanges }
}

/** GOLD and DISPLAY again, for a client that lost them. */
const redraw = (state: GameState, to: ClientId, viewer: Viewer): Transition => ({
  state,
  notices: welcomeAgain(state, to, viewer).notices.filter(({ notice }) => notice._tag === "Gold" || notice._tag === "Display"),
  changes: noChanges
})

const welcome = (state: GameState, to: ClientId, viewer: Viewer): Array<Envelope> => [
  { to, viewer, notice: { _tag: "Grid", rows: state.map.rows, cols: state.map.cols } },
  { to, viewer, notice: { _tag: "Gold", collected: 0, purse: 0, remaining: state.goldRemaining } },
  { to, viewer, notice: display }
]

/** `KEY k`: a move (lower case one step, capital as far as possible) or `Q` to quit. */
export const applyKey = (state: GameState, client: ClientId, key: string): Either.Either<Transition, KeyRefusal> => {
  if (state.over) return Either.left(new GameIsOver())
  if (state.spectator === client) {
    if (key === "Q") return Either.right(spectatorQuits(state))
    if (key === C.RedrawKey) return Either.right(redraw(state, client, "spectator"))
    return Either.left(new UnknownKeystroke({ key }))
  }
  const player = playerOf(state, client)
  if (!player) return Either.left(new NotJoined())
  if (key === "Q") return Either.right(playerQuits(state, player))
  if (key === C.RedrawKey) return Either.right(redraw(state, client, player.index))
  const lower = key.toLowerCase()
  const direction = key.length === 1 ? C.MoveDirections[lower] : undefined
  if (!direction) return Either.left(new UnknownKeystroke({ key }))
  return Either.right(move(state, player.index, direction, key !== lower))
}

const spectatorQuits = (state: GameState): Transition => ({
  state: { ...state, spectator: undefined },
  notices: [{ to: state.spectator!, viewer: "spectator", notice: { _tag: "Quit", reason: "SpectatorQuit" } }],
  changes: noChanges
})

/**
 * The player leaves the map. When that was the last player and every letter has been
 * used, no one can ever finish the game: it ends as if the gold were all collected.
 */
const playerQuits = (state: GameState, player: Player): Transition => {
  const players = state.players.slice()
  players[player.index] = { ...player, active: false }
  const over = players.length >= state.rules.maxPlayers && players.every((each) => !each.active)
  const next: GameState = { ...state, players, over }
  const notices = displayAll(next, [{ to: player.client, viewer: player.index, notice: { _tag: "Quit", reason: "PlayerQuit" } }])
  if (over) for (const { to, viewer } of audience(next)) notices.push({ to, viewer, notice: { _tag: "GameOver" } })
  return { state: next, notices, changes: { ...noChanges, cells: [player.position], left: [player.index] } }
}

/** The share of a victim's purse a thief takes in the `steal` variant: 10%, rounded down. */
export const stolenFrom = (purse: number): number => Math.floor(purse / 10)

const move = (
  state: GameState,
  moverIndex: number,
  [dRow, dCol]: readonly [number, number],
  repeat: boolean
): Transition => {
  const { map, sight } = state
  const steal = state.rules.variant === "steal"
  const players = state.players.slice()
  let gold: Map<number, number> | undefined
  let collected = 0
  const path = [players[moverIndex]!.position]
  const walks: Array<Walk> = []
  const cells = [path[0]!]
  const thefts: Array<Theft> = []
  for (;;) {
    const mover = players[moverIndex]!
    const row = Math.floor(mover.position / map.cols) + dRow
    const col = (mover.position % map.cols) + dCol
    if (row < 0 || col < 0 || row >= map.rows || col >= map.cols) break
    const target = row * map.cols + col
    if (!isSpot(map.cells[target]!)) break
    let purse = mover.purse
    const other = players.find((p) => p.active && p.position === target)
    if (other) {
      const taken = steal ? stolenFrom(other.purse) : 0
      if (taken > 0) {
        thefts.push({ thief: moverIndex, victim: other.index, nuggets: taken })
        purse += taken
      }
      players[other.index] = {
        ...other,
        position: mover.position,
        purse: other.purse - taken,
        known: withKnown(other.known, sight.visibleFrom(mover.position))
      }
      walks.push({ player: other.index, path: [target, mover.position] })
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
      purse: purse + pile,
      known: withKnown(mover.known, sight.visibleFrom(target))
    }
    path.push(target)
    // The path's ends are where the mover left and arrived; between them, only where gold
    // was taken or a swapped player landed did an occupant change.
    if (pile > 0) cells.push(target)
    if (other) cells.push(target, players[other.index]!.position)
    if (!repeat) break
  }
  if (path.length === 1) return { state, notices: [], changes: noChanges }
  cells.push(path[path.length - 1]!)
  walks.unshift({ player: moverIndex, path })
  const goldRemaining = state.goldRemaining - collected
  const over = collected > 0 && goldRemaining === 0
  const next: GameState = { ...state, players, gold: gold ?? state.gold, goldRemaining, over }
  const notices = displayAll(next, goldNotices(state, next, moverIndex, collected, thefts))
  if (next.over) for (const { to, viewer } of audience(next)) notices.push({ to, viewer, notice: { _tag: "GameOver" } })
  return { state: next, notices, changes: { cells, walks, joined: [], left: [], thefts } }
}

/**
 * GOLD after a move: to everyone when nuggets left the map (the count of nuggets left
 * changed); otherwise only to the thief and its victims, whose purses changed.
 */
const goldNotices = (
  before: GameState,
  state: GameState,
  moverIndex: number,
  collected: number,
  thefts: ReadonlyArray<Theft>
): Array<Envelope> => {
  if (collected === 0 && thefts.length === 0) return []
  const mover = state.players[moverIndex]!
  const gained = mover.purse - before.players[moverIndex]!.purse
  const told = collected > 0
    ? audience(state)
    : [moverIndex, ...thefts.map((theft) => theft.victim)].map((index) => ({
      to: state.players[index]!.client,
      viewer: index as Viewer
    }))
  return told.map(({ to, viewer }) => ({
    to,
    viewer,
    notice: {
      _tag: "Gold",
      collected: viewer === moverIndex ? gained : 0,
      purse: viewer === "spectator" ? 0 : state.players[viewer]!.purse,
      remaining: state.goldRemaining
    }
  }))
}

/** What a client can ask of the server: the protocol's PLAY, SPECTATE and KEY. */
export type Request =
  | { readonly _tag: "Play"; readonly name: string }
  | { readonly _tag: "Spectate" }
  | { readonly _tag: "Key"; readonly key: string }

/** Any request: joining draws from `Random`; the others need nothing, as their Either shows. */
export const applyRequest = (
  state: GameState,
  client: ClientId,
  request: Request
): Effect.Effect<Transition, Refusal> => {
  switch (request._tag) {
    case "Play":
      return addPlayer(state, client, request.name)
    case "Spectate":
      return addSpectator(state, client)
    case "Key":
      return applyKey(state, client, request.key)
  }
}

/** The server is going away: every client is told to quit, and the game is over. */
export const shutDown = (state: GameState): Transition => ({
  state: { ...state, over: true },
  notices: audience(state).map(({ to, viewer }) => ({ to, viewer, notice: { _tag: "Quit", reason: "ShutDown" } })),
  changes: noChanges
})

/** Every player who ever joined, in letter order, with its purse: what the game-over summary lists. */
export const standings = (
  state: GameState
): ReadonlyArray<{ readonly letter: string; readonly name: string; readonly purse: number }> =>
  state.players.map(({ letter, name, purse }) => ({ letter, name, purse }))
