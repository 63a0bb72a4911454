import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Option, type Scope } from "effect"
import { ArchiveBackend, failing } from "./backend.js"
import { ArchiveError, cannotOpen, isDamage } from "./errors.js"
import { gameById, unknownGame, withStandings } from "./games.js"
import { pageSize } from "./model.js"
import type { ArchivedGame, GameId, Leader, LeaderboardQuery, PastGamesPage, PastGamesQuery } from "./model.js"
import { type ArchiveOwnerService, makeOwner } from "./owner.js"
import { migrate } from "./schema.js"
import { gameRow, leadersStatement, pastGamesStatement, rebuildLeaders } from "./store.js"

/**
 * The archive of a host's games, as a service: the recordings are the source of truth,
 * and a database is their index, which any process may read. Writing it is for the one
 * process that owns it (`own`). The database comes from the context (`SqlClient`, with
 * the `ArchiveBackend` beside it): `sqliteBackend` provides both for a data directory.
 */
export interface ArchiveService {
  /** Past games (not `playing`), newest first, a page at a time; fails `UnknownGame` for a `before` not in the archive. */
  readonly pastGames: (query?: PastGamesQuery) => Effect.Effect<PastGamesPage, ArchiveError>
  /** One game, in play or past; fails `UnknownGame` if it is not in the archive. */
  readonly game: (id: GameId) => Effect.Effect<ArchivedGame, ArchiveError>
  /**
   * A game's recording as it stands (a game in play is still growing), byte for byte;
   * fails `UnknownGame` if the game is not in the archive or its recording is gone.
   */
  readonly recording: (id: GameId) => Effect.Effect<Uint8Array, ArchiveError>
  /** Names by wins, then nuggets, over the games played to their end. */
  readonly leaderboard: (query?: LeaderboardQuery) => Effect.Effect<ReadonlyArray<Leader>, ArchiveError>
  /**
   * Takes the archive for this scope, to record games in it and index them; fails `Busy`
   * at once while another process holds it (a host running on it).
   */
  readonly own: Effect.Effect<ArchiveOwnerService, ArchiveError, Scope.Scope>
}

export class Archive extends Context.Tag("nuggets/Archive")<Archive, ArchiveService>() {}

/** The owner of the archive (see `ArchiveService.own`), as a service. */
export class ArchiveOwner extends Context.Tag("nuggets/ArchiveOwner")<ArchiveOwner, ArchiveOwnerService>() {}

const withinPage = (limit: number | undefined) => Math.min(pageSize.max, Math.max(1, Math.floor(limit ?? pageSize.default)))

/** An empty filter is no filter. */
const filterText = (text: string | undefined) => (text === undefined || text.trim() === "" ? undefined : text.trim())

/** The archive on the context's database, its tables brought up to date first. */
export const makeArchive: Effect.Effect<ArchiveService, ArchiveError, SqlClient.SqlClient | ArchiveBackend> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const backend = yield* ArchiveBackend
  const { database, recordings } = backend
  const failed = failing(backend)
  yield* migrate.pipe(
    // The leaderboard is made from the games: a migration may change what it counts.
    Effect.tap((ran) => (ran.length > 0 ? rebuildLeaders(sql) : Effect.void)),
    Effect.catchTags({
      SqlError: (cause) =>
        // Damaged past what the start's check saw: marked, so that the next start makes it again.
        isDamage(cause)
          ? failed(cause)
          : cannotOpen(database, cause),
      MigrationError: (cause) => new ArchiveError({ reason: "Open", path: database, message: `${database} — ${cause.message}`, cause })
    })
  )
  const context = Context.make(SqlClient.SqlClient, sql).pipe(Context.add(ArchiveBackend, backend))

  const pastGames = (query: PastGamesQuery = {}) =>
    Effect.gen(function*() {
      const limit = withinPage(query.limit)
      let cursor
      if (query.before !== undefined) {
        const row = yield* gameRow(sql, query.before)
        if (Option.isNone(row)) return yield* unknownGame(query.before)
        cursor = { startedMs: row.value.started_ms, id: row.value.id }
      }
      const filter = { player: filterText(query.player), map: filterText(query.map), cursor, rows: limit + 1 }
      const rows = yield* pastGamesStatement(sql, filter)
      const games = yield* withStandings(sql, rows.slice(0, limit))
      return { games, next: rows.length > limit ? games.at(-1)?.id : undefined }
    }).pipe(Effect.catchTag("SqlError", failed))

  const game = (id: GameId) => gameById(sql, id).pipe(Effect.catchTag("SqlError", failed))

  const recording = (id: GameId) =>
    Effect.gen(function*() {
      yield* game(id)
      const bytes = yield* recordings.read(id).pipe(
        Effect.mapError((unreadable) => new ArchiveError({ reason: "Database", path: database, message: unreadable.message, cause: unreadable }))
      )
      if (Option.isNone(bytes)) return yield* new ArchiveError({ reason: "UnknownGame", message: `the recording of ${id} is gone` })
      return bytes.value
    })

  const leaderboard = (query: LeaderboardQuery = {}) =>
    leadersStatement(sql, filterText(query.player), withinPage(query.limit)).pipe(
      Effect.map((rows) =>
        rows.map((row) => ({
          name: row.name,
          games: row.games,
          wins: row.wins,
          nuggets: row.nuggets,
          best: { game: row.best_game, purse: row.best_purse }
        }))
      ),
      Effect.catchAll(failed)
    )

  return { pastGames, game, recording, leaderboard, own: Effect.provide(makeOwner, context) } satisfies ArchiveService
})

/** The archive, on the database the context provides. */
export const archiveLayer: Layer.Layer<Archive, ArchiveError, SqlClient.SqlClient | ArchiveBackend> = Layer.effect(Archive, makeArchive)

/** Owns the archive for as long as the layer lives. */
export const archiveOwnerLayer: Layer.Layer<ArchiveOwner, ArchiveError, Archive> = Layer.scoped(
  ArchiveOwner,
  Effect.flatMap(Archive, (archive) => archive.own)
)
