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

/** What the database said, on one line (SQLite's reports may hold several). */
export const oneLine = (words: string) => words.replace(/\s*\n\s*/g, " ").trim()

/**
 * The database's words, on one line, if it says its file is damaged: SQLite's SQLITE_CORRUPT
 * (and its kinds) or SQLITE_NOTADB, on the error or on what caused it; none if it does not.
 */
export const damageWords = (error: unknown): string | undefined => {
  let each = error
  // A few links at most: a query's error, @effect/sql's, SQLite's.
  for (let depth = 0; depth < 8 && typeof each === "object" && each !== null; depth++) {
    const code = (each as { code?: unknown }).code
    if (typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB")) return oneLine(what(each))
    each = (each as { cause?: unknown }).cause
  }
  return undefined
}

/** Whether the database says its file is damaged (see `damageWords`). */
export const isDamage = (error: unknown): boolean => damageWords(error) !== undefined

/** The archive's database at `path` could not be opened: in the words of what failed (the database's own, under a query's error). */
export const cannotOpen = (path: string, cause: unknown) =>
  new ArchiveError({
    reason: "Open",
    path,
    message: `${path} — cannot open the archive: ${what((cause as { cause?: unknown } | undefined)?.cause ?? cause)}`,
    cause
  })

/** The database (`database`, as messages name it) failed under a query; a damaged one says what happens next. */
export const databaseFailure = (database: string) => (cause: SqlError) => {
  const damage = damageWords(cause)
  return new ArchiveError({
    reason: "Database",
    path: database,
    message: damage !== undefined
      ? `${database} — the index is damaged (${damage}): it is made again from the recordings at the next start`
      : `${database} — the archive failed: ${what(cause.cause ?? cause)}`,
    cause
  })
}
