import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, type Scope } from "effect"
import { existsSync, mkdirSync, statSync } from "node:fs"
import { archiveFiles } from "./dataDir.js"
import { ArchiveError } from "./errors.js"
import { applicationId, migrate } from "./schema.js"

/**
 * Opening the archive's database: the data directory made if asked (0700, as the XDG
 * convention has it), the SQLite file opened in WAL mode (readers never wait for the
 * writer, and a killed writer leaves the last committed state), checked to be ours, and
 * its tables brought up to date. better-sqlite3 builds SQLite to sync a WAL database at
 * checkpoints only (synchronous NORMAL): a killed process loses nothing committed, a power
 * cut may lose the last few commits, which the next `reconcile` makes again from the files.
 */

const what = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** The data directory and its games/ folder, made if missing (`create`), else required to hold an archive. */
export const prepareDirectory = (dataDir: string, create: boolean): Effect.Effect<void, ArchiveError> =>
  Effect.try({
    try: () => {
      const files = archiveFiles(dataDir)
      if (create) {
        mkdirSync(files.games, { recursive: true, mode: 0o700 })
        return
      }
      if (!statSync(dataDir).isDirectory()) throw new Error("not a folder")
      if (!existsSync(files.database) && !existsSync(files.games)) throw new Error("no archive here")
    },
    catch: (cause) =>
      new ArchiveError({ reason: "Directory", path: dataDir, message: `${dataDir} — ${(cause as NodeJS.ErrnoException).code === "ENOENT" ? "no such folder" : what(cause)}`, cause })
  })

/**
 * A SQLite client on `filename`, for this scope. @effect/sql-sqlite-node's constructor throws
 * (a defect) when better-sqlite3 cannot open the file or it is not a database: here, that is
 * an `Open` error, with SQLite's own words kept as the cause.
 */
export const openClient = (
  filename: string,
  options: { readonly disableWAL?: boolean } = {}
): Effect.Effect<SqliteClient.SqliteClient, ArchiveError, Scope.Scope> =>
  SqliteClient.make({ filename, disableWAL: options.disableWAL ?? false }).pipe(
    Effect.provide(Reactivity.layer),
    Effect.catchAllDefect((cause) =>
      new ArchiveError({ reason: "Open", path: filename, message: `${filename} — cannot open the archive: ${what(cause)}`, cause })
    )
  )

export const databaseFailure = (path: string) => (cause: SqlError) =>
  new ArchiveError({ reason: "Database", path, message: `${path} — the archive failed: ${what(cause.cause ?? cause)}`, cause })

/** Refuses a database that is not an archive (another program's), before anything is written to it. */
const checkOurs = (sql: SqlClient.SqlClient, path: string) =>
  Effect.gen(function*() {
    const [id] = yield* sql<{ application_id: number }>`PRAGMA application_id`
    const [tables] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_schema`
    const ours = id?.application_id === applicationId || (id?.application_id === 0 && tables?.n === 0)
    if (!ours) {
      return yield* new ArchiveError({ reason: "Open", path, message: `${path} — not a nuggets archive: it is left as it is` })
    }
  })

/** The archive's database in `dataDir`, ready for queries, for this scope. */
export const openDatabase = (dataDir: string): Effect.Effect<SqliteClient.SqliteClient, ArchiveError, Scope.Scope> =>
  Effect.gen(function*() {
    const path = archiveFiles(dataDir).database
    const sql = yield* openClient(path)
    yield* checkOurs(sql, path).pipe(
      Effect.zipRight(migrate),
      Effect.catchTags({
        SqlError: (cause) =>
          new ArchiveError({ reason: "Open", path, message: `${path} — cannot open the archive: ${what(cause.cause ?? cause)}`, cause }),
        MigrationError: (cause) => new ArchiveError({ reason: "Open", path, message: `${path} — ${cause.message}`, cause })
      }),
      Effect.provideService(SqlClient.SqlClient, sql)
    )
    return sql
  })
