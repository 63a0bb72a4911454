import { Effect, Either, Random } from "effect"
import * as C from "./constants.js"
import { type GameMap, isSpot, type Step, stepFrom } from "./map.js"
import {
  AlreadyJoined,
  EmptyName,
  GameFull,
  GameIsOver,
  type KeyRefusal,
  NoRoomLeft,
  NotJoined,
  type PlayRefusal,
  type Refusal,
  type SpectateRefusal,
  UnknownKeystroke
} from "./refusals.js"
import { type Rules, specRules } from "./rules.js"
import {
  audience,
  type ClientId,
  type Envelope,
  type GameState,
  noChanges,
  type Notice,
  type Player,
  type QuitReason,
  playerAt,
  playerOf,
  type Request,
  type Theft,
  type Transition,
  type Viewer,
  type Walk
} from "./state.js"
import { nextIntBetween } from "./random.js"
import { makeSight } from "./visibility.js"

// The game's transitions: each takes a state and a request, and gives a `Transition` or a refusal.

// ---- Setting up ----

/**
 * A new game on `map`: piles in [min, max] (fewer where room spots are few), each at least
 * one nugget, on distinct random room spots. All randomness comes from Effect's `Random`
 * service, which also seeds the state's own generator for later draws (see `random.ts`), so
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
      random: yield* Random.nextInt,
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
export const addPlayer = (state: GameState, client: ClientId, rawName: string): Either.Either<Transition, PlayRefusal> => {
  if (state.over) return Either.left(new GameIsOver())
  const existing = playerOf(state, client)
  // The same PLAY again: its answer was lost on the way, so it is given again.
  if (existing) return Either.right(welcomeAgain(state, existing.client, existing.index))
  if (state.spectator === client) return Either.left(new AlreadyJoined({ as: "spectator" }))
  const name = sanitizeName(rawName, state.rules.maxNameLength)
  if (name.trim().length === 0) return Either.left(new EmptyName())
  if (state.players.length >= state.rules.maxPlayers) {
    return Either.left(new GameFull({ maxPlayers: state.rules.maxPlayers }))
  }
  const empty = Array.from(state.map.roomSpots).filter((spot) => !state.gold.has(spot) && !playerAt(state, spot))
  if (empty.length === 0) return Either.left(new NoRoomLeft())
  const [pick, random] = nextIntBetween(state.random, 0, empty.length)
  const position = empty[pick]!
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
  const next: GameState = { ...state, random, players: [...state.players, player] }
  const notices: Array<Envelope> = [
    { to: client, viewer: index, notice: { _tag: "Ok", letter: player.letter } },
    ...welcome(next, client, index)
  ]
  return Either.right({
    state: next,
    notices: displayAll(next, notices, client),
    changes: { ...noChanges, cells: [position], joined: [index] }
  })
}

/** `SPECTATE`: the newcomer replaces any spectator, who is told to quit. */
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

/** OK (to a player), GOLD and DISPLAY again, for a client that lost them. */
const redraw = (state: GameState, to: ClientId, viewer: Viewer): Transition => ({
  state,
  notices: welcomeAgain(state, to, viewer).notices.filter(({ notice }) => notice._tag !== "Grid"),
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

/**
 * A player silent for too long (the shell decides how long) is treated as having quit:
 * the same transition as its `KEY Q`, with its own words. The only defence against a
 * client that died without a word; undefined when `client` is not playing.
 */
export const dropSilent = (state: GameState, client: ClientId): Transition | undefined => {
  const player = state.over ? undefined : playerOf(state, client)
  return player && playerQuits(state, player, "Silent")
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
const playerQuits = (state: GameState, player: Player, reason: QuitReason = "PlayerQuit"): Transition => {
  const players = state.players.slice()
  players[player.index] = { ...player, active: false }
  const over = players.length >= state.rules.maxPlayers && players.every((each) => !each.active)
  const next: GameState = { ...state, players, over }
  const notices = displayAll(next, [{ to: player.client, viewer: player.index, notice: { _tag: "Quit", reason } }])
  if (over) for (const { to, viewer } of audience(next)) notices.push({ to, viewer, notice: { _tag: "GameOver" } })
  return { state: next, notices, changes: { ...noChanges, cells: [player.position], left: [player.index] } }
}

/** The share of a victim's purse a thief takes in the `steal` variant: 10%, rounded down. */
export const stolenFrom = (purse: number): number => Math.floor(purse / 10)

const move = (
  state: GameState,
  moverIndex: number,
  direction: Step,
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
    const target = stepFrom(map.rows, map.cols, mover.position, direction)
    if (target < 0 || !isSpot(map.cells[target]!)) break
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

/** Any request: a plain function, as every transition is (joining draws from the state's own generator). */
export const applyRequest = (state: GameState, client: ClientId, request: Request): Either.Either<Transition, Refusal> => {
  switch (request._tag) {
    case "Play":
      return addPlayer(state, client, request.name)
    case "Spectate":
      return addSpectator(state, client)
    case "Key":
      return applyKey(state, client, request.key)
  }
}

/**
 * Whoever runs the game ends it before the gold is all found (the host of `nuggets play`
 * leaving): the game is over, and everyone gets GAMEOVER with the standings so far.
 */
export const endGame = (state: GameState): Transition => ({
  state: { ...state, over: true },
  notices: audience(state).map(({ to, viewer }) => ({ to, viewer, notice: { _tag: "GameOver" } })),
  changes: noChanges
})

/** The server is going away: every client is told to quit, and the game is over. */
export const shutDown = (state: GameState): Transition => ({
  state: { ...state, over: true },
  notices: audience(state).map(({ to, viewer }) => ({ to, viewer, notice: { _tag: "Quit", reason: "ShutDown" } })),
  changes: noChanges
})

