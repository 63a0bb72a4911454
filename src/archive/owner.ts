import type { SqliteClient } from "@effect/sql-sqlite-node/SqliteClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect, Option, Random, type Scope } from "effect"
import { existsSync, mkdirSync } from "node:fs"
import { readdir, readFile } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"
import { digestOf } from "../recording/format.js"
import { version } from "../version.js"
import { archiveFiles } from "./dataDir.js"
import { databaseFailure } from "./database.js"
import { ArchiveError, UnreadableRecording } from "./errors.js"
import { recordingFacts, type RecordingFacts } from "./facts.js"
import { gameById, unknownGame } from "./games.js"
import { holdDirectory } from "./lock.js"
import type { ArchivedGame, GameId, GameStart, KnownMap, Outcome, Reconciled, StartedGame } from "./model.js"
import { allIds, gameRow, insertPlaying, mapNameOf, playingIds, removeGames, writeIndexed } from "./store.js"

/**
 * What the process that owns a data directory does to its archive: the host tells it of
 * each game it starts and ends, and at start `reconcile` brings the index into line with
 * the recordings on disk. Every row is made from its recording (`facts.ts`), in a
 * transaction of its own: a process killed at any moment leaves the index as it was
 * after the last one, and the next `reconcile` finishes the work.
 */
export interface ArchiveOwnerService {
  /**
   * A game starts: its row (`playing`) is written, and it is given an id and the file to
   * record it in, which does not exist yet. Call it before the game takes its first move.
   */
  readonly gameStarted: (start: GameStart) => Effect.Effect<StartedGame, ArchiveError>
  /**
   * A game has ended and its recording is closed (the recorder's scope is over): its row
   * is made from the file, with its end and standings. `defect`: a defect ended it (its
   * row says `failed`, with these words). Fails `UnknownGame` for an id it did not start;
   * ending a game twice changes nothing. A recording that cannot be read leaves no row.
   */
  readonly gameEnded: (id: GameId, ending?: { readonly defect?: string }) => Effect.Effect<ArchivedGame, ArchiveError | UnreadableRecording>
  /**
   * Indexes one recording in `DATA/games/` (its path or its file name); one indexed
   * already, or in play, is left as it is. A recording with no end is `interrupted`.
   */
  readonly indexRecording: (path: string) => Effect.Effect<ArchivedGame, ArchiveError | UnreadableRecording>
  /**
   * At start: indexes every recording on disk that has no row, marks `interrupted` each
   * game that was in play when the last owner died (its recording has no end), and drops
   * the rows of recordings that are gone. `maps` names the maps of recordings found on
   * disk (else an earlier game's name for the same map, else `map <digest>`). Call it once,
   * at start, before the first game starts: a game in play would be called interrupted.
   */
  readonly reconcile: (maps?: ReadonlyArray<KnownMap>) => Effect.Effect<Reconciled, ArchiveError>
}

const extension = ".ndjson"
const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

/** `20250601-143205-k3f9`: when it started (UTC) and four random characters; sorts by time, safe in a URL and a file name. */
const newId = (startedMs: number) =>
  Effect.gen(function*() {
    const iso = new Date(startedMs).toISOString()
    let suffix = ""
    for (let i = 0; i < 4; i++) suffix += idAlphabet[yield* Random.nextIntBetween(0, idAlphabet.length)]
    return `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}-${suffix}`
  })

export const makeOwner = (dataDir: string, sql: SqliteClient): Effect.Effect<ArchiveOwnerService, ArchiveError, Scope.Scope> =>
  Effect.gen(function*() {
    yield* holdDirectory(dataDir)
    const { games: gamesDir, database } = archiveFiles(dataDir)
    const failed = databaseFailure(database)
    const fileOf = (id: GameId) => join(gamesDir, id + extension)
    /** As reasons name it: relative to the data directory. */
    const shortName = (id: GameId) => `games/${id}${extension}`

    const readFacts = (id: GameId): Effect.Effect<RecordingFacts, UnreadableRecording> =>
      Effect.tryPromise({
        try: () => readFile(fileOf(id), "utf8"),
        catch: (cause) => new UnreadableRecording({ file: shortName(id), reason: `cannot be read: ${(cause as Error).message}`, cause })
      }).pipe(Effect.flatMap((text) => recordingFacts(shortName(id), text)))

    /** Writes the game's row from its facts, unless it was indexed meanwhile: each game counts once. */
    const indexOnce = (id: GameId, mapName: string, outcome: Outcome, failure: string | undefined, facts: RecordingFacts) =>
      sql.withTransaction(
        Effect.gen(function*() {
          const row = yield* gameRow(sql, id)
          if (Option.isSome(row) && row.value.outcome !== "playing") return
          yield* writeIndexed(sql, { id, mapName, outcome, failure }, facts)
        })
      )

    const mapNameFor = (digest: string, known: ReadonlyMap<string, string>) =>
      Option.fromNullable(known.get(digest)).pipe(
        Option.match({
          onSome: Effect.succeed,
          onNone: () => Effect.map(mapNameOf(sql, digest), Option.getOrElse(() => `map ${digest}`))
        })
      )

    /** A recording with no row, or whose row is `playing`, indexed from its file; an unreadable one loses its row. */
    const indexFile = (id: GameId, known: ReadonlyMap<string, string>, defect?: string) =>
      Effect.gen(function*() {
        const row = yield* gameRow(sql, id)
        const facts = yield* readFacts(id).pipe(
          Effect.tapError(() => Option.isSome(row) ? removeGames(sql, [id]) : Effect.void)
        )
        const mapName = Option.isSome(row) ? row.value.map_name : yield* mapNameFor(facts.mapDigest, known)
        // The recording says `failed` itself; `defect` is for one that could not (see `gameEnded`).
        const outcome: Outcome = defect !== undefined ? "failed" : facts.end ?? "interrupted"
        yield* indexOnce(id, mapName, outcome, defect ?? facts.failure, facts)
        return outcome
      })

    const game = (id: GameId) => gameById(sql, gamesDir, id)

    const gameStarted = (start: GameStart) =>
      Effect.gen(function*() {
        yield* Effect.try({
          try: () => mkdirSync(gamesDir, { recursive: true, mode: 0o700 }),
          catch: (cause) => new ArchiveError({ reason: "Directory", path: gamesDir, message: `${gamesDir} — ${(cause as Error).message}`, cause })
        })
        const startedMs = yield* Clock.currentTimeMillis
        for (let tries = 0; tries < 100; tries++) {
          const id = yield* newId(startedMs)
          // A file of that name, even with no row, is someone's: never written over.
          if (existsSync(fileOf(id)) || Option.isSome(yield* gameRow(sql, id))) continue
          yield* insertPlaying(sql, {
            id,
            mapName: start.mapName,
            mapDigest: digestOf(start.mapText),
            seed: start.seed,
            variant: start.variant,
            dialect: start.dialect,
            program: version,
            startedMs
          })
          return { id, file: fileOf(id) }
        }
        return yield* new ArchiveError({ reason: "Database", path: gamesDir, message: `${gamesDir} — no free name for a new game` })
      }).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(failed(error))))

    const gameEnded = (id: GameId, ending: { readonly defect?: string } = {}) =>
      Effect.gen(function*() {
        const row = yield* gameRow(sql, id)
        if (Option.isNone(row)) return yield* unknownGame(id)
        if (row.value.outcome === "playing") yield* indexFile(id, new Map(), ending.defect)
        return yield* game(id)
      }).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(failed(error))))

    const indexRecording = (path: string) =>
      Effect.gen(function*() {
        const full = resolve(gamesDir, path)
        if (dirname(full) !== gamesDir || !full.endsWith(extension)) {
          return yield* new UnreadableRecording({ file: path, reason: `the archive indexes only the recordings (*${extension}) in ${gamesDir}` })
        }
        const id = basename(full, extension)
        if (Option.isNone(yield* gameRow(sql, id))) yield* indexFile(id, new Map())
        return yield* game(id)
      }).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(failed(error))))

    const reconcile = (maps: ReadonlyArray<KnownMap> = []) =>
      Effect.gen(function*() {
        const known = new Map(maps.map((each) => [digestOf(each.mapText), each.name]))
        const onDisk = new Set(yield* recordingsOnDisk(gamesDir))
        const playing = new Set(yield* playingIds(sql))
        const indexedIds = new Set(yield* allIds(sql))
        const report = { indexed: [] as Array<GameId>, interrupted: [] as Array<GameId>, removed: [] as Array<GameId>, skipped: [] as Array<{ file: string; reason: string }> }
        const gone = [...indexedIds].filter((id) => !onDisk.has(id))
        yield* removeGames(sql, gone)
        report.removed.push(...gone)
        const toIndex = [...onDisk].filter((id) => playing.has(id) || !indexedIds.has(id)).sort()
        for (const id of toIndex) {
          const outcome = yield* indexFile(id, known).pipe(
            Effect.catchTag("UnreadableRecording", (unreadable) => {
              report.skipped.push({ file: unreadable.file, reason: unreadable.reason })
              if (indexedIds.has(id)) report.removed.push(id)
              return Effect.succeed(undefined)
            })
          )
          if (outcome === undefined) continue
          if (!indexedIds.has(id)) report.indexed.push(id)
          if (outcome === "interrupted" && playing.has(id)) report.interrupted.push(id)
        }
        return report satisfies Reconciled
      }).pipe(Effect.catchTag("SqlError", (error: SqlError) => Effect.fail(failed(error))))

    return { gameStarted, gameEnded, indexRecording, reconcile }
  })

/** The ids of the recordings in `gamesDir` (none if it does not exist yet). */
const recordingsOnDisk = (gamesDir: string): Effect.Effect<Array<GameId>, ArchiveError> =>
  Effect.tryPromise({
    try: () => readdir(gamesDir, { withFileTypes: true }),
    catch: (cause) => cause as NodeJS.ErrnoException
  }).pipe(
    Effect.map((entries) => entries.filter((each) => each.isFile() && each.name.endsWith(extension)).map((each) => basename(each.name, extension))),
    Effect.catchAll((cause) =>
      cause.code === "ENOENT"
        ? Effect.succeed([])
        : Effect.fail(new ArchiveError({ reason: "Directory", path: gamesDir, message: `${gamesDir} — ${cause.message}`, cause }))
    )
  )
