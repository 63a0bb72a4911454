import { Effect, Either, Random } from "effect"
import * as C from "./constants.js"
import { displayWhereChanged } from "./displays.js"
import type { GameMap } from "./map.js"
import { addPlayer, addSpectator, redraw } from "./join.js"
import { move } from "./move.js"
import { GameIsOver, type KeyRefusal, NotJoined, type Refusal, UnknownKeystroke } from "./refusals.js"
import { type Rules, rules2019 } from "./rules.js"
import {
  audience,
  changedState,
  type ClientId,
  type GameState,
  gameOverAll,
  leftPlayer,
  noChanges,
  type Player,
  playerOf,
  type QuitReason,
  type Request,
  type Transition
} from "./state.js"
import { makeSight } from "./visibility.js"

// The game's transitions: each takes a state and a request, and gives a `Transition` or a
// refusal. Here: setting up, keys, leaving and ending; joining is in `join.ts`, a move's
// rules in `move.ts`.

/**
 * A new game on `map`: piles in [min, max] (fewer where room spots are few), each at least
 * one nugget, on distinct random room spots. All randomness comes from Effect's `Random`
 * service, which also seeds the state's own generator for later draws (see `random.ts`), so
 * `Effect.withRandom(Random.make(seed))` makes a whole game reproducible.
 */
export const newGame = (map: GameMap, rules: Rules = rules2019): Effect.Effect<GameState> =>
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
  state: changedState(state, { spectator: undefined }),
  notices: [{ to: state.spectator!, viewer: "spectator", notice: { _tag: "Quit", reason: "SpectatorQuit" } }],
  changes: noChanges
})

/**
 * The player leaves the map. When that was the last player and every letter has been
 * used, no one can ever finish the game: it ends, everyone getting the standings, with
 * the gold left where it lies (a stopped game, with no winner: see `Life`).
 */
const playerQuits = (state: GameState, player: Player, reason: QuitReason = "PlayerQuit"): Transition => {
  const players = state.players.slice()
  players[player.index] = leftPlayer(player)
  const over = players.length >= state.rules.maxPlayers && players.every((each) => !each.active)
  const next = changedState(state, { players, over })
  const changes = { ...noChanges, cells: [player.position], left: [player.index] }
  const notices = displayWhereChanged(next, changes, [{ to: player.client, viewer: player.index, notice: { _tag: "Quit", reason } }])
  if (over) gameOverAll(next, notices)
  return { state: next, notices, changes }
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
 * leaving): the game ends, stopped, and everyone gets GAMEOVER with the standings so far.
 */
export const endGame = (state: GameState): Transition => ({
  state: changedState(state, { over: true }),
  notices: gameOverAll(state, []),
  changes: noChanges
})

/** The server is going away: every client is told to quit, and the game is over. */
export const shutDown = (state: GameState): Transition => ({
  state: changedState(state, { over: true }),
  notices: audience(state).map(({ to, viewer }) => ({ to, viewer, notice: { _tag: "Quit", reason: "ShutDown" } })),
  changes: noChanges
})

