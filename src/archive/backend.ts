import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, type Either, type Option, type Scope } from "effect"
import type { LineFile, RecordingError } from "../recording/lines.js"
import { type ArchiveError, databaseFailure, damageWords, type UnreadableRecording } from "./errors.js"
import type { GameId, Repaired } from "./model.js"

/**
 * What the archive needs of where it is kept, besides its database (`SqlClient`, from the
 * same Layer): where the recordings are, who may write the archive, and how messages name
 * the database. A Layer per backend provides both: SQLite in a data directory
 * (`sqlite.ts`); the archive never learns which it has.
 */
export interface ArchiveBackendService {
  /** The database as messages name it: a file, or a server. */
  readonly database: string
  readonly recordings: Recordings
  /**
   * Makes this process the archive's one writer for the scope; fails `Busy` at once while
   * another holds it. Where many write (the hosts of a fleet, each under its fence), it
   * claims nothing, and `oneWriter` is false.
   */
  readonly claim: Effect.Effect<void, ArchiveError, Scope.Scope>
  /**
   * Whether the writer is alone: then a game still in play when it starts was its own, from
   * before it last stopped (`reconcile`). In a fleet, the fleet decides that of a host's games.
   */
  readonly oneWriter: boolean
  /**
   * The index was found damaged when this process took it, and set aside for a new one,
   * which `reconcile` makes from the recordings. Only where the index is a file the owner
   * keeps (SQLite); a database server looks after its own.
   */
  readonly repaired?: Repaired
  /**
   * A query found the index damaged while in use (`words`, the database's): said once in
   * the log, and marked, so that the next start makes the index again from the recordings
   * even if its check passes. Only where that can be done (SQLite).
   */
  readonly damaged?: (words: string) => Effect.Effect<void>
}

/** Tells the backend of the damage a query's failure shows, if it does (`damaged`). */
export const noteDamage = (backend: ArchiveBackendService) => (error: SqlError): Effect.Effect<void> => {
  const words = damageWords(error)
  return words !== undefined && backend.damaged !== undefined ? backend.damaged(words) : Effect.void
}

/** A query's failure as the archive's error, the damage it shows told to the backend first. */
export const failing = (backend: ArchiveBackendService) => {
  const failure = databaseFailure(backend.database)
  const note = noteDamage(backend)
  return (error: SqlError): Effect.Effect<never, ArchiveError> => Effect.zipRight(note(error), Effect.fail(failure(error)))
}

export class ArchiveBackend extends Context.Tag("nuggets/ArchiveBackend")<ArchiveBackend, ArchiveBackendService>() {}

/** The recordings of the archive's games, one per id: the source of truth the index is made from. */
export interface Recordings {
  /** Every recording there is, by id. */
  readonly ids: Effect.Effect<ReadonlyArray<GameId>, ArchiveError>
  /** A recording as it stands (one in play is still growing); none when there is no such recording. */
  readonly read: (id: GameId) => Effect.Effect<Option.Option<Uint8Array>, UnreadableRecording>
  /** Whether a recording of this id exists: a new game's id must name none. */
  readonly exists: (id: GameId) => Effect.Effect<boolean>
  /** Ready to record new games in. */
  readonly prepare: Effect.Effect<void, ArchiveError>
  /** Opens a new game's recording for the recorder, for this scope: one that exists is never written over. */
  readonly open: (id: GameId) => Effect.Effect<LineFile, RecordingError, Scope.Scope>
  /** Removes a recording (of a game no one came to); none is no fault. */
  readonly remove: (id: GameId) => Effect.Effect<void>
  /** The id of the recording at `path` (its path, or its name where the recordings are); for a file elsewhere, why not. */
  readonly idAt: (path: string) => Either.Either<GameId, string>
  /** The recording as a reason names it (`games/ID.ndjson`). */
  readonly nameOf: (id: GameId) => string
}
