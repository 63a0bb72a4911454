import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer } from "effect"
import { Archive, archiveLayer } from "../../src/archive/archive.js"
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
