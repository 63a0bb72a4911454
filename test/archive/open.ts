import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer } from "effect"
import { Archive, archiveLayer, type ArchiveService } from "../../src/archive/archive.js"
import type { ArchivedGame } from "../../src/archive/model.js"
import { sqliteBackend, type SqliteArchiveOptions } from "../../src/archive/sqlite.js"

/** The archive on SQLite in a data directory, composed as the commands compose it, for this scope: the service and its SQL client. */
const opened = (options: SqliteArchiveOptions) =>
  Effect.map(Layer.build(archiveLayer.pipe(Layer.provideMerge(sqliteBackend(options)))), (context) => ({
    archive: Context.get(context, Archive),
    sql: Context.get(context, SqlClient.SqlClient)
  }))

export const openArchive = (options: SqliteArchiveOptions) => Effect.map(opened(options), ({ archive }) => archive)

/** The archive's database in `dataDir` (made if missing), its tables up to date, for this scope. */
export const openDatabase = (dataDir: string) => Effect.map(opened({ dataDir, create: true }), ({ sql }) => sql)

/** Every past game, page after page. */
export const everyGame = (archive: ArchiveService) =>
  Effect.gen(function*() {
    const games: Array<ArchivedGame> = []
    let before: string | undefined
    do {
      const page = yield* archive.pastGames({ before, limit: 100 })
      games.push(...page.games)
      before = page.next
    } while (before !== undefined)
    return games
  })
