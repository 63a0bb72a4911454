import type { SqliteClient } from "@effect/sql-sqlite-node/SqliteClient"
import { Context, Effect, Layer, Option, type Scope } from "effect"
import { archiveFiles } from "./dataDir.js"
import { databaseFailure, openDatabase, prepareDirectory } from "./database.js"
import type { ArchiveError } from "./errors.js"
import { gameById, unknownGame, withStandings } from "./games.js"
import { pageSize } from "./model.js"
import type { ArchivedGame, GameId, Leader, LeaderboardQuery, PastGamesPage, PastGamesQuery } from "./model.js"
import { type ArchiveOwnerService, makeOwner } from "./owner.js"
import { gameRow, leadersStatement, pastGamesStatement } from "./store.js"

/**
 * The archive of a host's games, as a service: the recordings under `DATA/games/` are the
 * source of truth, and a SQLite database (`DATA/archive.db`) is their index, which any
 * process may read. Writing it is for the one process that owns the directory (`own`).
 */
export interface ArchiveService {
  readonly dataDir: string
  /** Where the recordings are: `DATA/games/`. */
  readonly gamesDir: string
  /** Past games (not `playing`), newest first, a page at a time; fails `UnknownGame` for a `before` not in the archive. */
  readonly pastGames: (query?: PastGamesQuery) => Effect.Effect<PastGamesPage, ArchiveError>
  /** One game, in play or past; fails `UnknownGame` if it is not in the archive. */
  readonly game: (id: GameId) => Effect.Effect<ArchivedGame, ArchiveError>
  /** Names by wins, then nuggets, over the games played to their end. */
  readonly leaderboard: (query?: LeaderboardQuery) => Effect.Effect<ReadonlyArray<Leader>, ArchiveError>
  /**
   * Takes the data directory for this scope, to record games in it and index them; fails
   * `Busy` at once while another process holds it (a host running on it).
   */
  readonly own: Effect.Effect<ArchiveOwnerService, ArchiveError, Scope.Scope>
}

export class Archive extends Context.Tag("nuggets/Archive")<Archive, ArchiveService>() {}

/** The owner of the archive's directory (see `ArchiveService.own`), as a service. */
export class ArchiveOwner extends Context.Tag("nuggets/ArchiveOwner")<ArchiveOwner, ArchiveOwnerService>() {}

export interface ArchiveOptions {
  /** The data directory (see `dataDirectory`). */
  readonly dataDir: string
  /** Make the directory if it is missing (a host); else it must hold an archive already (a command that lists it). */
  readonly create: boolean
}

const withinPage = (limit: number | undefined) => Math.min(pageSize.max, Math.max(1, Math.floor(limit ?? pageSize.default)))

/** An empty filter is no filter. */
const filterText = (text: string | undefined) => (text === undefined || text.trim() === "" ? undefined : text.trim())

/** The archive on `sql`, its database open already: the queries, and `own`. */
export const makeArchive = (dataDir: string, sql: SqliteClient): ArchiveService => {
  const { games: gamesDir, database } = archiveFiles(dataDir)
  const failed = databaseFailure(database)

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
      const games = yield* withStandings(sql, gamesDir, rows.slice(0, limit))
      return { games, next: rows.length > limit ? games.at(-1)?.id : undefined }
    }).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(failed(error))))

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
      Effect.mapError(failed)
    )

  const service: ArchiveService = {
    dataDir,
    gamesDir,
    pastGames,
    game: (id) => gameById(sql, gamesDir, id).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(failed(error)))),
    leaderboard,
    own: Effect.suspend(() => makeOwner(dataDir, sql))
  }
  return service
}

/** The archive in `dataDir`, open for this scope. */
export const openArchive = (options: ArchiveOptions): Effect.Effect<ArchiveService, ArchiveError, Scope.Scope> =>
  Effect.gen(function*() {
    yield* prepareDirectory(options.dataDir, options.create)
    const sql = yield* openDatabase(options.dataDir)
    return makeArchive(options.dataDir, sql)
  })

export const archiveLayer = (options: ArchiveOptions): Layer.Layer<Archive, ArchiveError> =>
  Layer.scoped(Archive, openArchive(options))

/** Owns the archive's directory for as long as the layer lives. */
export const archiveOwnerLayer: Layer.Layer<ArchiveOwner, ArchiveError, Archive> = Layer.scoped(
  ArchiveOwner,
  Effect.flatMap(Archive, (archive) => archive.own)
)
