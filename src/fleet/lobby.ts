import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect, Layer, Option, Stream, SubscriptionRef } from "effect"
import { GameRefused } from "../host/errors.js"
import { Host, type HostService } from "../host/host.js"
import { liveGameJson } from "../host/json.js"
import { forwardedHeader, Lobby, type LobbyService, type Requester } from "../host/lobby.js"
import type { GameWanted } from "../host/model.js"
import { LobbyApi } from "../lobby/api.js"
import { lobbyPaths, pathTo } from "../lobby/paths.js"
import type { LiveGameJson, MatchJson, StartedGameJson } from "../lobby/schemas.js"
import { Board, type BoardGame, type BoardService } from "./board.js"
import { what } from "./database.js"
import { Membership, type MembershipService } from "./membership.js"
import { publishing } from "./publish.js"

/**
 * The lobby of a host of a fleet: every game of every host, from the fleet's board, each
 * with the line that joins it on its own host and its page there; a new game here, or, when
 * this host runs its most games (or takes none now), on another live host with room; and a
 * place in the fullest game of the whole fleet, held in the database, so that two players
 * never get one place, and one game is opened at a time, so that two never open twins.
 */

/** Key of the advisory lock under which one matchmaker at a time opens a game for the fleet. */
const openingLock = 0x4e554748

interface Seat {
  readonly id: string
  readonly port: number
  readonly address: string
  readonly map: string
}

/** A game of the board as the lobby shows it: its own host's join line, and its page there. */
const shownGame = (game: BoardGame): LiveGameJson => ({
  ...(game.shown as Omit<LiveGameJson, "join" | "page">),
  join: `nuggets join ${game.joinAddress} ${game.port} NAME`,
  // Its page on its own host; until that host has said where its lobby is, the path alone.
  page: game.lobbyUrl === "" ? pathTo(lobbyPaths.game, { id: game.id }) : new URL(pathTo(lobbyPaths.game, { id: game.id }), game.lobbyUrl).href
})

const refusedBy = (message: string) => new GameRefused({ reason: "CannotStart", message })

export const makeFleetLobby = (host: HostService, board: BoardService, membership: MembershipService) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { settings } = host
    const changes = yield* SubscriptionRef.make(0)
    let archived = 0
    const publish = yield* publishing(host, board)

    // What the lobby shows changes with this host's games (at once) and with the board (others').
    const bump = SubscriptionRef.update(changes, (version) => version + 1)
    yield* host.changes.changes.pipe(Stream.runForEach(() => bump), Effect.forkScoped)
    // And with this host's lease: while it cannot renew it, the lobby says it takes no new game.
    yield* membership.held.changes.pipe(Stream.drop(1), Stream.changes, Stream.runForEach(() => bump), Effect.forkScoped)
    let onBoard = new Set<string>()
    yield* board.changes.changes.pipe(
      Stream.runForEach(() => {
        const now = new Set(board.games().map((game) => game.id))
        // A game gone from the board went to the archive (its host indexed it first).
        for (const id of onBoard) if (!now.has(id)) archived++
        onBoard = now
        return bump
      }),
      Effect.forkScoped
    )

    const games = (): ReadonlyArray<LiveGameJson> => {
      const here = new Map(host.running().map((game) => [game.id, game]))
      const shown = board.games().map((game) => {
        const local = here.get(game.id)
        here.delete(game.id)
        return local === undefined ? shownGame(game) : liveGameJson(local, settings)
      })
      // This host's newest games, not yet on the board, go last.
      return [...shown, ...[...here.values()].map((game) => liveGameJson(game, settings))]
    }

    const startHere = (wanted: GameWanted, client: string | undefined) =>
      host.request(wanted, client).pipe(
        // On the board before it is answered: matchmaking may hold a place in it at once.
        Effect.tap(() => Effect.catchAll(publish, (error) => Effect.logWarning(error.message))),
        Effect.map((game): StartedGameJson => ({ id: game.id, port: game.port, address: settings.joinAddress }))
      )

    /** Live hosts with room for a game, the emptiest first, this one aside. */
    const hostsWithRoom = sql<{ id: string; lobby_url: string }>`SELECT h.id, h.lobby_url FROM fleet_hosts h
      LEFT JOIN fleet_games g ON g.host_id = h.id
      WHERE NOT h.gone AND NOT h.draining AND h.lease_until > now() AND h.id <> ${membership.hostId} AND h.lobby_url <> ''
      GROUP BY h.id HAVING h.max_games - count(g.id) > 0 ORDER BY h.max_games - count(g.id) DESC, h.id`

    /** `wanted` opened by another host of the fleet, through its own lobby's contract. */
    const startThere = (lobbyUrl: string, wanted: GameWanted) =>
      Effect.gen(function*() {
        const client = yield* HttpApiClient.make(LobbyApi, {
          baseUrl: new URL(lobbyUrl).origin,
          transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader(forwardedHeader, membership.hostId))
        })
        return yield* client.games.start({ payload: wanted })
      }).pipe(Effect.timeout("5 seconds"), Effect.provide(FetchHttpClient.layer), Effect.option)

    const start = (wanted: GameWanted, from: Requester = {}) =>
      Effect.gen(function*() {
        const here = yield* Effect.either(startHere(wanted, from.client))
        if (here._tag === "Right") return here.right
        // Only a host that runs its most games, or takes none now, sends the game on; a request forwarded here goes no further.
        const refusal = here.left
        if (from.forwarded === true || (refusal.reason !== "Full" && refusal.reason !== "CannotStart")) return yield* refusal
        const others = yield* hostsWithRoom.pipe(Effect.orElseSucceed(() => []))
        for (const other of others) {
          const there = yield* startThere(other.lobby_url, wanted)
          if (Option.isSome(there)) return there.value
        }
        return yield* refusal
      })

    const seatHeld = sql.literal(`interval '${Duration.toMillis(membership.timings.seatHeld)} milliseconds'`)
    /** A place in the fullest game of the fleet that has one, held for its player; rows another matchmaker holds are passed over. */
    const takeSeat = (skipLocked: boolean) =>
      sql.withTransaction(Effect.gen(function*() {
        const [game] = yield* sql<Seat>`SELECT g.id, g.port, h.join_address AS address, g.shown->>'map' AS map
          FROM fleet_games g JOIN fleet_hosts h ON h.id = g.host_id
          WHERE NOT h.gone AND NOT h.draining AND h.lease_until > now() AND NOT g.over
            AND g.free_places > (SELECT count(*) FROM fleet_seats s WHERE s.game_id = g.id AND s.held_until > now())
          ORDER BY g.playing DESC, g.started_ms, g.id LIMIT 1
          FOR UPDATE OF g ${sql.literal(skipLocked ? "SKIP LOCKED" : "")}`
        if (game === undefined) return Option.none<Seat>()
        yield* sql`INSERT INTO fleet_seats (game_id, held_until) VALUES (${game.id}, now() + ${seatHeld})`
        return Option.some(game)
      }))

    const match = (from: Requester = {}): Effect.Effect<MatchJson, GameRefused> => Effect.gen(function*() {
      const seat = yield* takeSeat(true)
      if (Option.isSome(seat)) return { ...seat.value, opened: false }
      // No place anywhere: one matchmaker of the fleet at a time looks again, and opens a game if it must.
      return yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(${openingLock})`
        const again = yield* takeSeat(false)
        if (Option.isSome(again)) return { ...again.value, opened: false }
        const opened = yield* start({}, from)
        yield* sql`INSERT INTO fleet_seats (game_id, held_until) VALUES (${opened.id}, now() + ${seatHeld})`
        const map = board.games().find((game) => game.id === opened.id)?.shown as { readonly map?: string } | undefined
        return { id: opened.id, port: opened.port, address: opened.address, map: map?.map ?? host.find(opened.id)?.choice.map.name ?? "", opened: true }
      }))
    }).pipe(
      Effect.catchTag("SqlError", (error) => Effect.fail(refusedBy(`the fleet's database cannot answer: ${what(error.cause ?? error)}`)))
    )

    return {
      games,
      game: (id) => games().find((game) => game.id === id),
      changes,
      archived: () => archived,
      start,
      match
    } satisfies LobbyService
  })

export const fleetLobbyLayer: Layer.Layer<Lobby, never, Host | Board | Membership | SqlClient.SqlClient> = Layer.scoped(
  Lobby,
  Effect.gen(function*() {
    return yield* makeFleetLobby(yield* Host, yield* Board, yield* Membership)
  })
)
