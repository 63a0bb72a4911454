import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Effect, Either, Option, Random } from "effect"
import { digestOf } from "../recording/format.js"
import { version } from "../version.js"
import { ArchiveBackend, failing, noteDamage, type Recordings } from "./backend.js"
import { ArchiveError, isDamage, UnreadableRecording } from "./errors.js"
import { recordingFacts, type RecordingFacts } from "./facts.js"
import { gameById, unknownGame } from "./games.js"
import type { ArchivedGame, GameId, GameStart, KnownMap, Outcome, Reconciled, StartedGame } from "./model.js"
import { allIds, gameRow, insertPlaying, mapNameOf, playingIds, removeGames, writeIndexed } from "./store.js"
import { transaction } from "./transaction.js"

/**
 * What the process that owns the archive does to it: the host tells it of each game it
 * starts and ends, and at start `reconcile` brings the index into line with the
 * recordings. Every row is made from its recording (`facts.ts`), in a
 * transaction of its own: a process killed at any moment leaves the index as it was
 * after the last one, and the next `reconcile` finishes the work.
 */
export interface ArchiveOwnerService {
  /**
   * A game starts: its row (`playing`) is written, and it is given an id and a recording
   * of its own, new. Call it before the game takes its first move. A damaged index costs
   * the game its row, not its start: the next start indexes its recording.
   */
  readonly gameStarted: (start: GameStart) => Effect.Effect<StartedGame, ArchiveError>
  /**
   * A game has ended and its recording is closed (the recorder's scope is over): its row
   * is made from the file, with its end and standings. `defect`: a defect ended it (its
   * row says `failed`, with these words). Fails `UnknownGame` for an id it did not start;
   * ending a game twice changes nothing. A recording that cannot be read leaves no row.
   */
  readonly gameEnded: (id: GameId, ending?: { readonly defect?: string }) => Effect.Effect<ArchivedGame, ArchiveError | UnreadableRecording>
  /** A game no one came to, or that never started: its recording and its row go, leaving nothing. */
  readonly gameDropped: (id: GameId) => Effect.Effect<void, ArchiveError>
  /**
   * Indexes one recording in `DATA/games/` (its path or its file name); one indexed
   * already, or in play, is left as it is. A recording with no end is `interrupted`.
   */
  readonly indexRecording: (path: string) => Effect.Effect<ArchivedGame, ArchiveError | UnreadableRecording>
  /**
   * At start: indexes every recording on disk that has no row, marks `interrupted` each
   * game that was in play when the last owner died (its recording has no end), and drops
   * the rows of recordings that are gone. An index found damaged when it was opened was set
   * aside for an empty one: this makes it again, every recording, and says so (`repaired`).
   * `maps` names the maps of recordings found on disk (else the damaged index's name for it,
   * else an earlier game's name for the same map, else `map <digest>`). Call it once, at
   * start, before the first game starts: a game in play would be called interrupted.
   */
  readonly reconcile: (maps?: ReadonlyArray<KnownMap>) => Effect.Effect<Reconciled, ArchiveError>
}

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

/** `20250601-143205-k3f9`: when it started (UTC) and four random characters; sorts by time, safe in a URL and a file name. */
const newId = (startedMs: number) =>
  Effect.gen(function*() {
    const iso = new Date(startedMs).toISOString()
    let suffix = ""
    for (let i = 0; i < 4; i++) suffix += idAlphabet[yield* Random.nextIntBetween(0, idAlphabet.length)]
    return `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}-${suffix}`
  })

/** A recording's facts; one with a bad line is read up to it, and that is said where it is found. */
const factsOf = (recordings: Recordings, id: GameId): Effect.Effect<RecordingFacts, UnreadableRecording> =>
  recordings.read(id).pipe(
    Effect.flatMap(Option.match({
      onNone: () => new UnreadableRecording({ file: recordings.nameOf(id), reason: "cannot be read: it is gone" }),
      onSome: (bytes) => recordingFacts(recordings.nameOf(id), new TextDecoder().decode(bytes))
    })),
    Effect.tap(({ badLine, end }) =>
      badLine === undefined ? Effect.void : Effect.logWarning(
        `${recordings.nameOf(id)}: line ${badLine.line} cannot be read (${badLine.reason}): ` +
          `indexed up to the line before it${end === undefined ? ", as interrupted" : ""}`
      ))
  )

/** The owner of the archive for this scope, once the backend's claim is held (else `Busy`). */
export const makeOwner = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const backend = yield* ArchiveBackend
  const { database, oneWriter, recordings, claim } = backend
  yield* claim
  const failed = failing(backend)
  const note = noteDamage(backend)

  const readFacts = (id: GameId) => factsOf(recordings, id)

  /** Writes the game's row from its facts, unless it was indexed meanwhile: each game counts once. */
  const indexOnce = (id: GameId, mapName: string, outcome: Outcome, failure: string | undefined, facts: RecordingFacts) =>
    transaction(
      sql,
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

  /**
   * A recording with no row, or whose row is `playing`, indexed from its file; an unreadable
   * one loses its row. Its map keeps the name its row gave it, or that of a damaged index.
   */
  const indexFile = (
    id: GameId,
    known: ReadonlyMap<string, string>,
    { defect, formerName }: { readonly defect?: string | undefined; readonly formerName?: string | undefined } = {}
  ) =>
    Effect.gen(function*() {
      const row = yield* gameRow(sql, id)
      const facts = yield* readFacts(id).pipe(
        Effect.tapError(() => Option.isSome(row) ? removeGames(sql, [id]) : Effect.void)
      )
      const mapName = Option.isSome(row) ? row.value.map_name : formerName ?? (yield* mapNameFor(facts.mapDigest, known))
      // The recording says `failed` itself; `defect` is for one that could not (see `gameEnded`).
      const outcome: Outcome = defect !== undefined ? "failed" : facts.end ?? "interrupted"
      yield* indexOnce(id, mapName, outcome, defect ?? facts.failure, facts)
      return outcome
    })

  const game = (id: GameId) => gameById(sql, id)

  const gameStarted = (start: GameStart) =>
    Effect.gen(function*() {
      yield* recordings.prepare
      const startedMs = yield* Clock.currentTimeMillis
      for (let tries = 0; tries < 100; tries++) {
        const id = yield* newId(startedMs)
        // A recording of that name, even with no row, is someone's: never written over.
        if (yield* recordings.exists(id)) continue
        const placed = yield* Effect.gen(function*() {
          if (Option.isSome(yield* gameRow(sql, id))) return false
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
          return true
        }).pipe(
          // A damaged index stops no game: its recording is the truth, which the next start indexes.
          Effect.catchIf(isDamage, (error) => Effect.as(note(error), true))
        )
        if (!placed) continue
        return { id, recording: recordings.open(id) }
      }
      return yield* new ArchiveError({ reason: "Database", path: database, message: `${database} — no free name for a new game` })
    }).pipe(Effect.catchTag("SqlError", failed))

  const gameEnded = (id: GameId, ending: { readonly defect?: string } = {}) =>
    Effect.gen(function*() {
      const row = yield* gameRow(sql, id)
      if (Option.isNone(row)) return yield* unknownGame(id)
      if (row.value.outcome === "playing") yield* indexFile(id, new Map(), { defect: ending.defect })
      return yield* game(id)
    }).pipe(Effect.catchTag("SqlError", failed))

  const indexRecording = (path: string) =>
    Effect.gen(function*() {
      const id = recordings.idAt(path)
      if (Either.isLeft(id)) return yield* new UnreadableRecording({ file: path, reason: id.left })
      if (Option.isNone(yield* gameRow(sql, id.right))) yield* indexFile(id.right, new Map())
      return yield* game(id.right)
    }).pipe(Effect.catchTag("SqlError", failed))

  let unreported = backend.repaired
  const reconcile = (maps: ReadonlyArray<KnownMap> = []) =>
    Effect.gen(function*() {
      // Many writers: a game in play is some live host's; the fleet ends a dead host's games.
      if (!oneWriter) return { indexed: [], interrupted: [], removed: [], skipped: [] } satisfies Reconciled
      const known = new Map(maps.map((each) => [digestOf(each.mapText), each.name]))
      // A damaged index set aside: each game keeps the name it gave its map, as its row would have.
      const former = new Map(unreported?.mapNames)
      const stored = new Set(yield* recordings.ids)
      const playing = new Set(yield* playingIds(sql))
      const indexedIds = new Set(yield* allIds(sql))
      const report = { indexed: [] as Array<GameId>, interrupted: [] as Array<GameId>, removed: [] as Array<GameId>, skipped: [] as Array<{ file: string; reason: string }> }
      const gone = [...indexedIds].filter((id) => !stored.has(id))
      yield* removeGames(sql, gone)
      report.removed.push(...gone)
      const toIndex = [...stored].filter((id) => playing.has(id) || !indexedIds.has(id)).sort()
      for (const id of toIndex) {
        const outcome = yield* indexFile(id, known, { formerName: former.get(id) }).pipe(
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
      // The index set aside at open is now made again: told by the first reconcile, which did it.
      const repaired = unreported
      unreported = undefined
      return (repaired === undefined ? report : { ...report, repaired }) satisfies Reconciled
    }).pipe(Effect.catchTag("SqlError", failed))

  const gameDropped = (id: GameId) =>
    recordings.remove(id).pipe(
      Effect.zipRight(removeGames(sql, [id])),
      Effect.catchTag("SqlError", failed)
    )

  return { gameStarted, gameEnded, gameDropped, indexRecording, reconcile } satisfies ArchiveOwnerService
})
