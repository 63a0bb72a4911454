import { Effect, type Scope } from "effect"
import { archiveFiles } from "./dataDir.js"
import { openClient } from "./database.js"
import { ArchiveError } from "./errors.js"

/**
 * One process at a time owns a data directory: the one that records games in it and may
 * call a game without an end interrupted. Node has no flock, so the lock is SQLite's own:
 * a small database (`archive.lock`) held in EXCLUSIVE locking mode for the scope. The
 * system releases it when the process ends in any way, SIGKILL included, so a host
 * restarted after a crash never finds a stale lock; a second process finds it busy at once.
 */
export const holdDirectory = (dataDir: string): Effect.Effect<void, ArchiveError, Scope.Scope> =>
  Effect.gen(function*() {
    const path = archiveFiles(dataDir).lock
    const sql = yield* openClient(path, { disableWAL: true })
    yield* Effect.all([
      sql.unsafe("PRAGMA busy_timeout = 0"),
      // No journal file beside it: nothing is ever written.
      sql.unsafe("PRAGMA journal_mode = MEMORY"),
      sql.unsafe("PRAGMA locking_mode = EXCLUSIVE"),
      // The exclusive lock taken here is kept after the commit, until the connection closes.
      sql.unsafe("BEGIN EXCLUSIVE"),
      sql.unsafe("COMMIT")
    ], { discard: true }).pipe(
      Effect.mapError((cause) =>
        (cause.cause as { code?: unknown } | undefined)?.code === "SQLITE_BUSY"
          ? new ArchiveError({ reason: "Busy", path: dataDir, message: `${dataDir} — in use by another nuggets process`, cause })
          : new ArchiveError({ reason: "Open", path, message: `${path} — cannot lock the archive: ${cause.message}`, cause })
      )
    )
  })
