import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Deferred, Duration, Effect, Layer, Stream, SubscriptionRef } from "effect"
import { FleetError, what } from "./database.js"
import { Membership } from "./membership.js"

/**
 * The fleet's board: the games being played on every host, as the lobby shows them. Each
 * host writes its own games (under its fence) and says so on a channel (`NOTIFY`, game ids
 * only); every host reads them all again when told, and after every (re)subscription, so
 * that nothing said while it was not listening is missed. A listener that stops without a
 * word (as @effect/sql-pg's does when the database restarts) is found by a ping this host
 * sends itself, and listens again.
 */

/** The channel the board's changes are told on. */
export const lobbyChannel = "nuggets_lobby"

/** A game as its host writes it on the board. */
export interface PostedGame {
  readonly id: string
  readonly port: number
  /** What the lobby shows of it, as JSON, but for what depends on its host (the join line, its page). */
  readonly shown: unknown
  readonly freePlaces: number
  readonly playing: number
  readonly startedMs: number
  readonly over: boolean
}

/** A game of the fleet, with the host it runs on. */
export interface BoardGame extends PostedGame {
  readonly hostId: string
  readonly lobbyUrl: string
  readonly joinAddress: string
}

export interface BoardService {
  /** Every game of the fleet, as last read. */
  readonly games: () => ReadonlyArray<BoardGame>
  /** Grows whenever the board was read again and something on it had changed. */
  readonly changes: SubscriptionRef.SubscriptionRef<number>
  /** Writes this host's games as they stand, under its fence, and tells the fleet. */
  readonly post: (games: ReadonlyArray<PostedGame>) => Effect.Effect<void, FleetError>
  /** Takes this host's game off the board, and tells the fleet. */
  readonly withdraw: (id: string) => Effect.Effect<void, FleetError>
  /** Reads the board again now. */
  readonly refresh: Effect.Effect<void, FleetError>
}

export class Board extends Context.Tag("nuggets/fleet/Board")<Board, BoardService>() {}

interface Row {
  readonly id: string
  readonly host_id: string
  readonly lobby_url: string
  readonly join_address: string
  readonly port: number
  readonly shown: unknown
  readonly free_places: number
  readonly playing: number
  readonly started_ms: number
  readonly over: boolean
}

const databaseError = (doing: string) => (cause: { readonly cause?: unknown }) =>
  new FleetError({ reason: "Database", message: `the fleet's database: cannot ${doing}: ${what(cause.cause ?? cause)}`, cause })

/** How long the board waits for its own ping before it takes its listener for dead. */
const pingWithin = Duration.seconds(3)

export const makeBoard = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = yield* PgClient.PgClient
  const membership = yield* Membership
  const { hostId } = membership
  const changes = yield* SubscriptionRef.make(0)
  let games: ReadonlyArray<BoardGame> = []
  let seen = ""

  const tell = (ids: ReadonlyArray<string>) =>
    Effect.forEach(ids, (id) => sql`SELECT pg_notify(${lobbyChannel}, ${id})`, { discard: true })

  // A dead host's games stay until the fleet has archived them: a game is always on the board or in the archive.
  const refresh = sql<Row>`SELECT g.*, h.lobby_url, h.join_address FROM fleet_games g JOIN fleet_hosts h ON h.id = g.host_id
    ORDER BY g.started_ms, g.id`.pipe(
    Effect.flatMap((rows) =>
      Effect.gen(function*() {
        const now = JSON.stringify(rows)
        if (now === seen) return
        seen = now
        games = rows.map((row) => ({
          id: row.id,
          hostId: row.host_id,
          lobbyUrl: row.lobby_url,
          joinAddress: row.join_address,
          port: row.port,
          shown: row.shown,
          freePlaces: row.free_places,
          playing: row.playing,
          startedMs: row.started_ms,
          over: row.over
        }))
        yield* SubscriptionRef.update(changes, (version) => version + 1)
      })
    ),
    Effect.mapError(databaseError("read the games"))
  )

  const post = (posted: ReadonlyArray<PostedGame>) =>
    Effect.forEach(posted, (game) =>
      sql`INSERT INTO fleet_games (id, host_id, port, shown, free_places, playing, started_ms, over)
        SELECT ${game.id}, ${hostId}, ${game.port}, ${pg.json(game.shown)}, ${game.freePlaces}, ${game.playing}, ${game.startedMs}, ${game.over}
        WHERE ${membership.fence()}
        ON CONFLICT (id) DO UPDATE SET shown = excluded.shown, free_places = excluded.free_places,
          playing = excluded.playing, over = excluded.over
        WHERE fleet_games.host_id = excluded.host_id`, { discard: true }).pipe(
      Effect.zipRight(tell(posted.map((game) => game.id))),
      Effect.mapError(databaseError("write this host's games"))
    )

  const withdraw = (id: string) =>
    sql`DELETE FROM fleet_games WHERE id = ${id} AND host_id = ${hostId} AND ${membership.fence()}`.pipe(
      Effect.zipRight(tell([id])),
      Effect.mapError(databaseError("take a game off the board"))
    )

  /**
   * One subscription: LISTEN, then a ping to itself, which says the listener is there; then
   * the board is read (what was said before is in the tables), and a ping goes every
   * `pingWithin` that must come back within as long. It fails when one does not.
   */
  const subscription = Effect.gen(function*() {
    let pings = 0
    let heard = yield* Deferred.make<void>()
    const told = yield* Effect.makeLatch(false)
    yield* pg.listen(lobbyChannel).pipe(
      Stream.runForEach((payload) =>
        payload === `ping:${hostId}:${pings}` ? Deferred.succeed(heard, undefined) : payload.startsWith("ping:") ? Effect.void : told.open
      ),
      Effect.forkScoped
    )
    const pingOnce = (within: Duration.DurationInput) =>
      Effect.gen(function*() {
        heard = yield* Deferred.make<void>()
        // Not PgClient's notify: it sends `NOTIFY channel, $1`, which PostgreSQL refuses.
        yield* sql`SELECT pg_notify(${lobbyChannel}, ${`ping:${hostId}:${++pings}`})`
        yield* Deferred.await(heard).pipe(Effect.timeoutFail({ duration: within, onTimeout: () => "no ping" as const }))
      })
    // The first ping heard says the LISTEN is in place (it is made as the stream starts): only then is the board read.
    yield* pingOnce("200 millis").pipe(Effect.retry({ times: Math.ceil(Duration.toMillis(pingWithin) / 200) }))
    yield* refresh
    // What is told is read at most every 100 ms, however much is told.
    yield* told.await.pipe(
      Effect.zipRight(told.close),
      Effect.zipRight(Effect.sleep("100 millis")),
      Effect.zipRight(Effect.ignore(refresh)),
      Effect.forever,
      Effect.forkScoped
    )
    return yield* Effect.sleep(pingWithin).pipe(Effect.zipRight(pingOnce(pingWithin)), Effect.forever)
  })

  // Listening for as long as the board lives: a subscription that fails is made again, and the board read anew.
  yield* Effect.scoped(subscription).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("the fleet's board: listening again", cause)),
    Effect.zipRight(Effect.sleep("500 millis")),
    Effect.forever,
    Effect.forkScoped
  )

  return { games: () => games, changes, post, withdraw, refresh } satisfies BoardService
})

export const boardLayer: Layer.Layer<Board, never, SqlClient.SqlClient | PgClient.PgClient | Membership> = Layer.scoped(Board, makeBoard)
