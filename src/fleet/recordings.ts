import * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import { type Duration, Effect, Either, Layer, Option, type Scope } from "effect"
import { ArchiveBackend, type Recordings } from "../archive/backend.js"
import { ArchiveError, UnreadableRecording } from "../archive/errors.js"
import type { GameId } from "../archive/model.js"
import { batchedLines, type LineFile, RecordingError } from "../recording/lines.js"
import { databaseName, what } from "./database.js"
import { Membership } from "./membership.js"

/**
 * The fleet's recordings, kept in its database (`recording_chunks`) rather than on any
 * host's disk: each game's lines are appended in batches as it goes, in order. While the
 * database cannot be reached the batches wait, up to `bufferBytes` a game, and are written
 * when it comes back; past that the recording stops there (the game goes on), and says so.
 */

/** Lines a game's recording may hold back while the database is away: about 100,000 moves. */
export const bufferBytes = 4 * 1024 * 1024
/** How long a batch the database did not take waits before it is tried again. */
const retryAfter = "500 millis"
/**
 * A game's lines go to the database in batches this often: each is a transaction, and at
 * 100 ms (a file's pace) 300 games at a person's pace made PostgreSQL commit 1,400 a second,
 * more than half a core, starving the lobby's queries. A host that dies loses at most this.
 */
const batchEvery = "1 second"

const encoder = new TextEncoder()

/**
 * A recording appended to the database by one fiber, batch after batch, each written once
 * and in order; a batch the fence refused (the fleet claimed this host) ends the recording.
 */
const appending = (sql: SqlClient.SqlClient, id: GameId, writer: Writer): Effect.Effect<LineFile, never, Scope.Scope> =>
  Effect.gen(function*() {
    /** Batches made and not yet written, oldest first. */
    const unwritten: Array<{ readonly seq: number; readonly lines: string }> = []
    let held = 0
    let made = 0
    let stopped: string | undefined
    const wake = yield* Effect.makeLatch(false)

    const insert = (batch: { readonly seq: number; readonly lines: string }) =>
      sql<{ seq: number }>`INSERT INTO recording_chunks (game_id, seq, lines)
        SELECT ${id}, ${batch.seq}, ${batch.lines} WHERE ${writer.fence()}
        ON CONFLICT (game_id, seq) DO NOTHING RETURNING seq`
    const written = (seq: number) => sql`SELECT 1 FROM recording_chunks WHERE game_id = ${id} AND seq = ${seq}`.pipe(Effect.map((rows) => rows.length > 0))

    const oneWriter = yield* Effect.makeSemaphore(1)
    /** Writes what waits, in order, one writer at a time; a batch the database did not take is tried again after a moment. */
    const writeAll: Effect.Effect<void> = oneWriter.withPermits(1)(Effect.gen(function*() {
      while (unwritten.length > 0 && stopped === undefined) {
        const batch = unwritten[0]!
        const inserted = yield* Effect.either(insert(batch))
        if (Either.isLeft(inserted)) {
          yield* Effect.sleep(retryAfter)
          continue
        }
        // None inserted: written before (a retry after a lost answer), or refused by the fence.
        if (inserted.right.length === 0 && !(yield* written(batch.seq).pipe(Effect.orElseSucceed(() => true)))) {
          stopped = "the fleet claimed this host: the game is no longer its own"
        }
        unwritten.shift()
        held -= batch.lines.length
      }
    }))
    yield* wake.await.pipe(Effect.zipRight(wake.close), Effect.zipRight(writeAll), Effect.forever, Effect.forkScoped)

    const lines = yield* batchedLines((batch) => {
      if (stopped !== undefined) return
      if (held + batch.length > bufferBytes) {
        stopped = `more than ${bufferBytes / 1024 / 1024} MB waited for the database`
        return
      }
      held += batch.length
      unwritten.push({ seq: made++, lines: batch })
      wake.unsafeOpen()
    }, batchEvery)
    // Before the batching and the writer stop: the last batch, and what waits, within the grace.
    yield* Effect.addFinalizer(() =>
      Effect.sync(lines.flush).pipe(
        // A finalizer runs uninterruptibly: the wait is made interruptible, or the grace could not end it.
        Effect.zipRight(Effect.interruptible(writeAll)),
        Effect.timeout(writer.grace),
        Effect.catchAll(() => Effect.logWarning(`recording ${id}: ${unwritten.length} batches were never written: the database did not come back in time`)),
        Effect.zipRight(Effect.suspend(() => (stopped === undefined ? Effect.void : Effect.logWarning(`recording ${id} stopped: ${stopped}`))))
      )
    )
    // Taken into the buffer is taken: the database may be away a while, and the game goes on meanwhile.
    const taken = Effect.suspend(() =>
      stopped === undefined ? Effect.void : Effect.fail(new RecordingError({ reason: "Write", path: `recording ${id}`, code: undefined, message: stopped }))
    )
    return { ...lines, written: taken }
  })

/**
 * The host that writes recordings: its `fence`, and how long the end of a recording waits
 * for the database before what it holds is given up (its lease: once that has lapsed, the
 * fleet has claimed the host, and the fence would refuse what it wrote).
 */
interface Writer {
  readonly fence: () => Fragment
  readonly grace: Duration.DurationInput
}

/** The fleet's recordings as the archive keeps them; `writer` is the writing host (none: this process only reads). */
export const fleetRecordings = (sql: SqlClient.SqlClient, name: string, writer: Writer | undefined): Recordings => ({
  ids: sql<{ game_id: string }>`SELECT DISTINCT game_id FROM recording_chunks`.pipe(
    Effect.map((rows) => rows.map((row) => row.game_id)),
    Effect.mapError((cause) => new ArchiveError({ reason: "Database", path: name, message: `${name} — the archive failed: ${what(cause.cause ?? cause)}`, cause }))
  ),
  read: (id) =>
    sql<{ lines: string }>`SELECT lines FROM recording_chunks WHERE game_id = ${id} ORDER BY seq`.pipe(
      Effect.map((rows) => (rows.length === 0 ? Option.none() : Option.some(encoder.encode(rows.map((row) => row.lines).join(""))))),
      Effect.mapError((cause) => new UnreadableRecording({ file: `recording ${id}`, reason: `cannot be read: ${what(cause.cause ?? cause)}`, cause }))
    ),
  // Unsure is taken as yes: a new game's id must name no recording.
  exists: (id) => sql`SELECT 1 FROM recording_chunks WHERE game_id = ${id} LIMIT 1`.pipe(Effect.map((rows) => rows.length > 0), Effect.orElseSucceed(() => true)),
  prepare: Effect.void,
  open: (id) =>
    writer === undefined
      ? Effect.fail(new RecordingError({ reason: "Open", path: `recording ${id}`, code: undefined, message: "this process only reads the fleet's archive" }))
      : appending(sql, id, writer),
  remove: (id) => Effect.ignore(sql`DELETE FROM recording_chunks WHERE game_id = ${id}`),
  idAt: () => Either.left("the fleet's recordings are kept in its database, by game id"),
  nameOf: (id) => `recording ${id}`
})

/** The archive's backend on the fleet's database for a host of the fleet: every host writes, each under its fence. */
export const fleetArchiveBackend = (url: URL): Layer.Layer<ArchiveBackend, never, SqlClient.SqlClient | Membership> =>
  Layer.effect(
    ArchiveBackend,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { fence, timings } = yield* Membership
      const writer = { fence, grace: timings.leaseFor }
      return { database: databaseName(url), recordings: fleetRecordings(sql, databaseName(url), writer), claim: Effect.void, oneWriter: false }
    })
  )

/** The same, for a process that only reads the fleet's archive (`archive list --database`). */
export const readingFleetArchiveBackend = (url: URL): Layer.Layer<ArchiveBackend, never, SqlClient.SqlClient> =>
  Layer.effect(
    ArchiveBackend,
    Effect.map(SqlClient.SqlClient, (sql) => ({ database: databaseName(url), recordings: fleetRecordings(sql, databaseName(url), undefined), claim: Effect.void, oneWriter: false }))
  )
