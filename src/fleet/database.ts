import * as Reactivity from "@effect/experimental/Reactivity"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Data, Effect, Layer, Redacted } from "effect"
import { types } from "pg"
import { migrate as migrateArchive } from "../archive/schema.js"
import { fleetMigrations } from "./schema.js"

/**
 * The fleet's database, PostgreSQL: what `--database postgres://USER@HOST:PORT/DB` names.
 * Every host of a fleet opens it; the archive's tables and the fleet's own are brought up
 * to date by whichever host starts first, one at a time.
 */

/** The fleet's database cannot be reached or used; `message` says which and why, in words. */
export class FleetError extends Data.TaggedError("FleetError")<{
  readonly reason: "Url" | "Connect" | "Database" | "Fenced"
  readonly message: string
  readonly cause?: unknown
}> {}

/** The database as messages name it: its address without the password. */
export const databaseName = (url: URL): string => `postgres://${url.username ? `${decodeURIComponent(url.username)}@` : ""}${url.host}${url.pathname}`

/** `--database`'s value, checked: a postgres:// (or postgresql://) URL with a host and a database. */
export const databaseUrl = (text: string): URL | undefined => {
  try {
    const url = new URL(text)
    return (url.protocol === "postgres:" || url.protocol === "postgresql:") && url.hostname !== "" && url.pathname.length > 1 ? url : undefined
  } catch {
    return undefined
  }
}

/** 64-bit integers (times in milliseconds, seeds, epochs) come back as numbers, as they do from SQLite. */
const int8 = 20
const pgTypes = {
  getTypeParser: (id: number, format?: "text" | "binary") =>
    id === int8 ? (text: string) => Number(text) : types.getTypeParser(id, format as "text")
} as never

/** The fleet's own tables' migrations are counted apart from the archive's. */
const migrateFleet = Migrator.make({})({ loader: fleetMigrations, table: "nuggets_fleet_migrations" })

/** Key of the advisory lock under which one host at a time brings the tables up to date. */
const migrationLock = 0x4e554747

/**
 * A client of the fleet's database, for as long as the layer lives, its tables up to date:
 * `SqlClient` for the archive, `PgClient` for the fleet's LISTEN and NOTIFY.
 */
export const fleetDatabaseLayer = (url: URL): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, FleetError> =>
  PgClient.layer({
    url: Redacted.make(url.href),
    types: pgTypes,
    applicationName: "nuggets",
    connectTimeout: "5 seconds",
    maxConnections: 8
  }).pipe(
    Layer.provide(Reactivity.layer),
    Layer.tap((context) =>
      Effect.flatMap(SqlClient.SqlClient, (client) =>
        // One host at a time: the lock is held by a connection of its own, for the migrations' length.
        Effect.scoped(Effect.gen(function*() {
          const connection = yield* client.reserve
          yield* Effect.acquireRelease(
            connection.executeRaw("SELECT pg_advisory_lock($1)", [migrationLock]),
            () => Effect.ignore(connection.executeRaw("SELECT pg_advisory_unlock($1)", [migrationLock]))
          )
          yield* migrateArchive
          yield* migrateFleet
        }))).pipe(Effect.provide(Layer.succeedContext(context)))
    ),
    Layer.mapError((cause) =>
      new FleetError({
        reason: cause._tag === "SqlError" ? "Connect" : "Database",
        message: `${databaseName(url)} — ${cause._tag === "SqlError" ? `cannot reach the database: ${what(cause.cause ?? cause)}` : cause.message}`,
        cause
      })
    )
  )

export const what = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))
