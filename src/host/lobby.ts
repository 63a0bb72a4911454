import { Context, Effect, Layer, type SubscriptionRef } from "effect"
import type { LiveGameJson, MatchJson, StartedGameJson } from "../lobby/schemas.js"
import type { GameRefused } from "./errors.js"
import { Host, type HostService } from "./host.js"
import { liveGameJson } from "./json.js"
import type { GameWanted } from "./model.js"

/**
 * What a lobby offers, whoever provides it: the games it shows, a new game, a place in a
 * game. One contract for the lobby's API, its feed and its pages; a lone host provides it
 * from its own games (`localLobby`), a host of a fleet from the fleet's database
 * (`fleet/lobby.ts`), and nothing that reads it knows which.
 */
export interface LobbyService {
  /** Every game the lobby shows, oldest first, each with the line that joins it and its page. */
  readonly games: () => ReadonlyArray<LiveGameJson>
  readonly game: (id: string) => LiveGameJson | undefined
  /** Grows whenever what the lobby shows may have changed. */
  readonly changes: SubscriptionRef.SubscriptionRef<number>
  /** Grows whenever a game has gone to the archive. */
  readonly archived: () => number
  /**
   * A new game, here or where there is room; `forwarded`: another host of a fleet sent the
   * request on, and it goes no further.
   */
  readonly start: (wanted: GameWanted, from?: Requester) => Effect.Effect<StartedGameJson, GameRefused>
  /**
   * A place for one more player, held a few seconds for it: in the fullest game with one
   * (the oldest of those), or in a game opened for it. Two players never get one place.
   */
  readonly match: (from?: Requester) => Effect.Effect<MatchJson, GameRefused>
}

/** Who asks: a client's address (each has its own pace of new games), and whether another host of a fleet sent the request on. */
export interface Requester {
  readonly client?: string | undefined
  readonly forwarded?: boolean | undefined
}

export class Lobby extends Context.Tag("nuggets/Lobby")<Lobby, LobbyService>() {}

/** The header a host of a fleet forwards a new game with: the host it reaches opens it itself, or not at all. */
export const forwardedHeader = "x-nuggets-forwarded"

/** How long a place matchmaking found is kept for its player. */
export const seatHeldMs = 15_000

/**
 * Places held for players on their way, by game: each until when (ms), and how many had
 * joined the game when the oldest was taken. A player who joins takes a held place (the
 * oldest): so a held place is never counted twice, once held and once taken.
 */
export class Seats {
  private readonly held = new Map<string, { until: Array<number>; joined: number }>()

  /** How many places of `game` are held at `now`, `joined` having joined it so far. */
  count(game: string, joined: number, now: number): number {
    const seats = this.held.get(game)
    if (seats === undefined) return 0
    const taken = Math.max(0, joined - seats.joined)
    const until = seats.until.slice(taken).filter((each) => each > now)
    if (until.length === 0) this.held.delete(game)
    else this.held.set(game, { until, joined })
    return until.length
  }

  hold(game: string, joined: number, until: number): void {
    const seats = this.held.get(game)
    this.held.set(game, { until: [...(seats?.until ?? []), until], joined: seats?.joined ?? joined })
  }
}

/** The best of `games` for one more player, counting places held: the most players in it, then the oldest. */
export const fullestWithRoom = <G extends { readonly id: string; readonly freePlaces: number; readonly over: boolean }>(
  games: ReadonlyArray<G>,
  playing: (game: G) => number,
  held: (game: G) => number
): G | undefined =>
  games
    .filter((game) => !game.over && game.freePlaces - held(game) > 0)
    .map((game, order) => ({ game, order, playing: playing(game) }))
    .sort((a, b) => b.playing - a.playing || a.order - b.order)[0]?.game

/** The lobby of a lone host: its own games. */
export const localLobby = (host: HostService): Effect.Effect<LobbyService> =>
  Effect.gen(function*() {
    const clock = yield* Effect.clock
    const seats = new Seats()
    const games = () => host.running().map((game) => liveGameJson(game, host.settings))
    const address = host.settings.joinAddress
    const start = (wanted: GameWanted, from: Requester = {}) =>
      Effect.map(host.request(wanted, from.client), (game) => ({ id: game.id, port: game.port, address }))
    // One at a time: two players asking at once never get the last place.
    const oneAtATime = yield* Effect.makeSemaphore(1)
    const match = (from: Requester = {}) => Effect.gen(function*() {
      const now = clock.unsafeCurrentTimeMillis()
      const found = fullestWithRoom(games(), (game) => game.players.filter((each) => each.playing).length, (game) => seats.count(game.id, game.players.length, now))
      if (found !== undefined) {
        seats.hold(found.id, found.players.length, now + seatHeldMs)
        return { id: found.id, port: found.port, address, map: found.map, opened: false }
      }
      const opened = yield* host.request({}, from.client)
      seats.hold(opened.id, 0, clock.unsafeCurrentTimeMillis() + seatHeldMs)
      return { id: opened.id, port: opened.port, address, map: opened.choice.map.name, opened: true }
    }).pipe(oneAtATime.withPermits(1))
    return {
      games,
      game: (id) => {
        const found = host.find(id)
        return found === undefined ? undefined : liveGameJson(found, host.settings)
      },
      changes: host.changes,
      archived: host.archived,
      start,
      match
    } satisfies LobbyService
  })

export const localLobbyLayer: Layer.Layer<Lobby, never, Host> = Layer.effect(Lobby, Effect.flatMap(Host, localLobby))
