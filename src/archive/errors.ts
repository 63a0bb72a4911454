import type { SqlError } from "@effect/sql/SqlError"
import { Data } from "effect"

/**
 * The archive could not do its work: the data directory could not be made (`Directory`),
 * a directory to read holds no archive (`NoArchive`), the database could not be opened or
 * is not an archive (`Open`), another process holds the archive (`Busy`), a game it was
 * asked about is not in it (`UnknownGame`), or the database failed under a query (`Database`). `path` names the file, folder or database
 * at fault; `cause` keeps what the system or the database said.
 */
export class ArchiveError extends Data.TaggedError("ArchiveError")<{
  readonly reason: "Directory" | "NoArchive" | "Open" | "Busy" | "UnknownGame" | "Database"
  readonly message: string
  readonly path?: string
  readonly cause?: unknown
}> {}

/** A recording the archive cannot index, and why in words; the file itself is left as it is. */
export class UnreadableRecording extends Data.TaggedError("UnreadableRecording")<{
  /** The file, relative to the data directory (`games/ID.ndjson`). */
  readonly file: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message() {
    return `${this.file} — ${this.reason}`
  }
}

/** What went wrong, in the words of whoever said it. */
export const what = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** The database (`database`, as messages name it) failed under a query. */
export const databaseFailure = (database: string) => (cause: SqlError) =>
  new ArchiveError({ reason: "Database", path: database, message: `${database} — the archive failed: ${what(cause.cause ?? cause)}`, cause })
