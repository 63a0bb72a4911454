import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Clock, Context, Effect, Either, ExecutionStrategy, Exit, Layer, Option, Scope } from "effect"
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { ArchiveBackend } from "./backend.js"
import { archiveFiles } from "./dataDir.js"
import { ArchiveError, cannotOpen, databaseFailure, damageWords, oneLine, what } from "./errors.js"
import type { Repaired } from "./model.js"
import { recordingFiles } from "./recordingFiles.js"
import { dropStaleMark, formerMapNames, leaveMark, moveAside, readMark } from "./repair.js"

/**
 * The archive on SQLite, in a data directory: the recordings in `DATA/games/`, their index
 * in `DATA/archive.db`, opened in WAL mode (readers never wait for the writer, and a killed
 * writer leaves the last committed state) and checked to be ours before anything is
 * written to it. better-sqlite3 builds SQLite to sync a WAL database at checkpoints only
 * (synchronous NORMAL): a killed process loses nothing committed, a power cut may lose the
 * last few commits, which the next `reconcile` makes again from the files. One process at
 * a time writes the archive: the one holding `DATA/archive.lock` (`holdDirectory`), which
 * checks the index before it opens it, and sets a damaged one aside (`repair.ts`).
 */

export interface SqliteArchiveOptions {
  /** The data directory (see `dataDirectory`). */
  readonly dataDir: string
  /** Make the directory if it is missing (a host); else it must hold an archive already (a command that lists it). */
  readonly create: boolean
}

/** 'NUGG': marks the database as ours, so that a file of someone else's is never taken for it. */
const applicationId = 0x4e554747

/** The data directory and its games/ folder, made if missing (`create`), else required to hold an archive (`NoArchive`). */
const prepareDirectory = (dataDir: string, create: boolean): Effect.Effect<void, ArchiveError> =>
  Effect.try({
    try: () => {
      const files = archiveFiles(dataDir)
      if (create) {
        mkdirSync(files.games, { recursive: true, mode: 0o700 })
        return
      }
      if (!existsSync(dataDir)) return "no such folder"
      if (!statSync(dataDir).isDirectory()) throw new Error("not a folder")
      if (!existsSync(files.database) && !existsSync(files.games)) return "no archive here"
    },
    catch: (cause) => new ArchiveError({ reason: "Directory", path: dataDir, message: `${dataDir} — ${what(cause)}`, cause })
  }).pipe(
    Effect.flatMap((missing) =>
      missing === undefined ? Effect.void : new ArchiveError({ reason: "NoArchive", path: dataDir, message: `${dataDir} — ${missing}` })
    )
  )

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
    Effect.catchAllDefect((cause) => cannotOpen(filename, cause))
  )

/**
 * Refuses a database that is not an archive (another program's), before anything is
 * written to it; an empty one is marked as ours.
 */
const makeOurs = (sql: SqlClient.SqlClient, path: string) =>
  Effect.gen(function*() {
    const [id] = yield* sql<{ application_id: number }>`PRAGMA application_id`
    const [tables] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_schema`
    if (id?.application_id === applicationId) return
    if (id?.application_id !== 0 || tables?.n !== 0) {
      return yield* new ArchiveError({ reason: "Open", path, message: `${path} — not a nuggets archive: it is left as it is` })
    }
    yield* sql.unsafe(`PRAGMA application_id = ${applicationId}`)
  }).pipe(
    Effect.catchTag("SqlError", (cause) =>
      // Damaged under another process that holds it (a host): said as a query's damage is.
      damageWords(cause) !== undefined
        ? databaseFailure(path)(cause)
        : cannotOpen(path, cause))
  )

/**
 * The process that holds the lock, as it wrote itself down in `archive.pid`: one that is
 * still running (the file of one killed before stays until the next owner writes its own).
 */
const holderOf = (file: string): number | undefined => {
  let pid: number
  try {
    pid = Number(readFileSync(file, "utf8").trim())
  } catch {
    return undefined
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined
  try {
    process.kill(pid, 0)
    return pid
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM" ? pid : undefined
  }
}

/** Writes this process down as the holder, for as long as the scope lasts (a file left behind is harmless: see `holderOf`). */
const writeHolder = (file: string): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      try {
        writeFileSync(file, `${process.pid}\n`)
      } catch {
        // Only the words of a second process's refusal are lost.
      }
    }),
    () =>
      Effect.sync(() => {
        try {
          if (readFileSync(file, "utf8").trim() === String(process.pid)) rmSync(file)
        } catch {
          // Gone already.
        }
      })
  )

/**
 * One process at a time owns a data directory: the one that records games in it and may
 * call a game without an end interrupted. Node has no flock, so the lock is SQLite's own:
 * a small database (`archive.lock`) held in EXCLUSIVE locking mode for the scope. The
 * system releases it when the process ends in any way, SIGKILL included, so a host
 * restarted after a crash never finds a stale lock; a second process finds it busy at once,
 * and names the holder by the PID it wrote in `archive.pid` (the lock itself cannot be read).
 */
const holdDirectory = (dataDir: string): Effect.Effect<void, ArchiveError, Scope.Scope> =>
  Effect.gen(function*() {
    const { lock: path, holder } = archiveFiles(dataDir)
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
      Effect.mapError((cause) => {
        if ((cause.cause as { code?: unknown } | undefined)?.code !== "SQLITE_BUSY") {
          return new ArchiveError({ reason: "Open", path, message: `${path} — cannot lock the archive: ${cause.message}`, cause })
        }
        const pid = holderOf(holder)
        const who = pid === undefined ? "another nuggets process" : `another nuggets process (PID ${pid})`
        return new ArchiveError({ reason: "Busy", path: dataDir, message: `${dataDir} — in use by ${who}`, cause })
      })
    )
    yield* writeHolder(holder)
  })

/** Holds the directory for this scope if no other process does; whether it does. */
const holdIfFree = (dataDir: string): Effect.Effect<boolean, never, Scope.Scope> =>
  Effect.gen(function*() {
    const attempt = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const held = yield* Effect.either(Scope.extend(holdDirectory(dataDir), attempt))
    if (Either.isLeft(held)) yield* Scope.close(attempt, Exit.void)
    return Either.isRight(held)
  })

type ArchiveFiles = ReturnType<typeof archiveFiles>

/**
 * What is wrong with the index, in SQLite's words, if it is damaged: a file SQLite cannot
 * read as a database, one `PRAGMA quick_check` (the structure of every page, in one pass)
 * finds fault with, or one marked when a query found it damaged while in use. Another
 * program's database is not looked into: `makeOurs` refuses it, untouched.
 */
const damageFound = (files: ArchiveFiles): Effect.Effect<Option.Option<string>, ArchiveError> =>
  Effect.gen(function*() {
    dropStaleMark(files)
    if (!existsSync(files.database)) return Option.none()
    const mark = readMark(files)
    if (mark !== undefined) return Option.some(`found while in use, ${mark}`)
    const sql = yield* openClient(files.database)
    const [id] = yield* sql<{ application_id: number }>`PRAGMA application_id`
    if (id?.application_id !== applicationId && id?.application_id !== 0) return Option.none()
    const report = (yield* sql<{ quick_check: string }>`PRAGMA quick_check(3)`).map((row) => row.quick_check)
    return report.join() === "ok" ? Option.none() : Option.some(`quick_check: ${oneLine(report.join("; "))}`)
  }).pipe(
    Effect.scoped,
    Effect.catchAll((error) => {
      const damage = damageWords(error)
      if (damage !== undefined) return Effect.succeed(Option.some(damage))
      return Effect.fail(error._tag === "ArchiveError" ? error : cannotOpen(files.database, error))
    })
  )

/**
 * The index set aside if it is damaged (see `damageFound`, `moveAside`): what was found,
 * the names it gave maps (read before it goes), and where it went.
 */
const repairIfDamaged = (files: ArchiveFiles): Effect.Effect<Repaired | undefined, ArchiveError> =>
  Effect.gen(function*() {
    const found = yield* damageFound(files)
    if (Option.isNone(found)) return undefined
    const mapNames = yield* Effect.scoped(Effect.flatMap(openClient(files.database), formerMapNames)).pipe(Effect.orElseSucceed(() => []))
    return { found: found.value, mapNames, movedTo: yield* moveAside(files, yield* Clock.currentTimeMillis) }
  })

/**
 * A query found the index damaged: marked for the next start (which sets it aside and makes
 * a new one), and said once, by the process that holds the directory (a host); one that
 * only reads it (`archive list` beside a host) says it in its own error. A mark that cannot
 * be written (a full disk, say) is said instead.
 */
const damageNoted = (files: ArchiveFiles, held: boolean) => {
  let told = false
  return (words: string) =>
    Effect.suspend(() => {
      if (told) return Effect.void
      told = true
      return Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) => Effect.either(leaveMark(files, now, words))),
        Effect.flatMap((marked) =>
          !held ? Effect.void : Effect.logWarning(
            `the archive's index ${files.database} is damaged (${words}): what meets the damage fails (503) until the next start, ` +
              (Either.isRight(marked)
                ? `which makes a new one from the recordings (marked in ${files.damaged})`
                : `and ${files.damaged} could not be written (${marked.left}): move ${files.database} aside before then`)
          )
        )
      )
    })
}

/**
 * The SQLite database of the archive in `dataDir`, open and ours, for this scope; its tables
 * are the archive's to make. The directory is held from here if no other process holds it
 * (a host, `archive list` with no host on it): then a damaged index is set aside first.
 */
const openSqlite = (options: SqliteArchiveOptions) =>
  Effect.gen(function*() {
    yield* prepareDirectory(options.dataDir, options.create)
    const files = archiveFiles(options.dataDir)
    const held = yield* holdIfFree(options.dataDir)
    const repaired = held ? yield* repairIfDamaged(files) : undefined
    const sql = yield* openClient(files.database)
    yield* makeOurs(sql, files.database)
    return { sql, held, repaired }
  })

/** The archive's backend on SQLite in a data directory: the `SqlClient` and the `ArchiveBackend`, for as long as the layer lives. */
export const sqliteBackend = (options: SqliteArchiveOptions): Layer.Layer<SqlClient.SqlClient | ArchiveBackend, ArchiveError> =>
  Layer.scopedContext(Effect.gen(function*() {
    const { held, repaired, sql } = yield* openSqlite(options)
    const files = archiveFiles(options.dataDir)
    return Context.make(SqlClient.SqlClient, sql).pipe(
      Context.add(ArchiveBackend, {
        database: files.database,
        recordings: recordingFiles(files.games),
        // Held since it was opened, or taken now (a host that held it has stopped since).
        claim: held ? Effect.void : holdDirectory(options.dataDir),
        oneWriter: true,
        damaged: damageNoted(files, held),
        ...(repaired === undefined ? {} : { repaired })
      })
    )
  }))
