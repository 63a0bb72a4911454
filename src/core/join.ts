import { Either } from "effect"
import * as C from "./constants.js"
import { displayWhereChanged } from "./displays.js"
import { nextIntBetween } from "./random.js"
import {
  AlreadyJoined,
  EmptyName,
  GameFull,
  GameIsOver,
  NoRoomLeft,
  type PlayRefusal,
  type SpectateRefusal
} from "./refusals.js"
import {
  changedState,
  type ClientId,
  type Envelope,
  type GameState,
  makePlayer,
  noChanges,
  playerAt,
  playerOf,
  type Transition,
  type Viewer,
  withKnown
} from "./state.js"

// Joining: `PLAY` and `SPECTATE`, and what a client that joined is told (again, when it asks).

/** Truncates to the maximum length and replaces each char that is neither graphic nor blank by `_`. */
export const sanitizeName = (raw: string, maxLength: number = C.MaxNameLength): string =>
  Array.from(raw).slice(0, maxLength).map((ch) => (/^[\x21-\x7e \t]$/.test(ch) ? ch : "_")).join("")

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
  const known = withKnown(new Uint8Array(state.map.cells.length), state.sight.visibleFrom(position))
  const player = makePlayer(index, C.PlayerLetters[index]!, name, client, position, 0, true, known)
  const next = changedState(state, { random, players: [...state.players, player] })
  const notices: Array<Envelope> = [
    { to: client, viewer: index, notice: { _tag: "Ok", letter: player.letter } },
    ...welcome(next, client, index)
  ]
  const changes = { ...noChanges, cells: [position], joined: [index] }
  return Either.right({ state: next, notices: displayWhereChanged(next, changes, notices, client), changes })
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
  const next = changedState(state, { spectator: client })
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
export const redraw = (state: GameState, to: ClientId, viewer: Viewer): Transition => ({
  state,
  notices: welcomeAgain(state, to, viewer).notices.filter(({ notice }) => notice._tag !== "Grid"),
  changes: noChanges
})

/** GRID, GOLD and DISPLAY: what a client is told when it joins. */
const welcome = (state: GameState, to: ClientId, viewer: Viewer): Array<Envelope> => [
  { to, viewer, notice: { _tag: "Grid", rows: state.map.rows, cols: state.map.cols } },
  { to, viewer, notice: { _tag: "Gold", collected: 0, purse: 0, remaining: state.goldRemaining } },
  { to, viewer, notice: { _tag: "Display" } }
]
