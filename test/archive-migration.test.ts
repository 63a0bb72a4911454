import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { inject } from "vitest"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, Layer, Redacted } from "effect"
import { join } from "node:path"
import { makeArchive } from "../src/archive/archive.js"
import { ArchiveBackend } from "../src/archive/backend.js"
import { recordingFiles } from "../src/archive/recordingFiles.js"
import { migrations } from "../src/archive/schema.js"
import { scratchFolders } from "./archive/recordings.js"
import { freshDatabase } from "./postgres.js"

const freshDir = scratchFolders("archive-migration")

/** The archive's tables as the first release made them. */
const firstRelease = Migrator.make({})({ loader: Migrator.fromRecord({ "1_archive": migrations["1_archive"] }) })

/** Games indexed by the first release, in its words: `game over` (one whose last player left with nuggets on the map among them), `shut down`. */
const oldGames = [
  { id: "g-over", outcome: "game over", players: [["A", "Ann", 200, 1], ["B", "Bo", 50, 2]] },
  { id: "g-left", outcome: "game over", players: [["A", "Ann", 30, 1], ["B", "Cy", 20, 2]] },
  { id: "g-shut", outcome: "shut down", players: [["A", "Bo", 100, 1], ["B", "Ann", 10, 2]] },
  { id: "g-cut", outcome: "interrupted", players: [["A", "Ann", 5, 1]] },
  { id: "g-now", outcome: "playing", players: [] }
] as const

const indexedByTheFirstRelease = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* firstRelease
  for (const [i, game] of oldGames.entries()) {
    const startedMs = Date.UTC(2026, 0, 1 + i)
    const ended = game.outcome !== "playing"
    yield* sql`INSERT INTO games ${
      sql.insert({
        id: game.id,
        map_name: "small",
        map_digest: "d",
        seed: 1,
        variant: "classic",
        dialect: "2019",
        program: "0.1.0",
        started_ms: startedMs,
        duration_ms: ended ? 1000 : null,
        moves: ended ? 10 : null,
        outcome: game.outcome,
        failure: null
      })
    }`
    for (const [letter, name, purse, rank] of game.players) {
      yield* sql`INSERT INTO players ${sql.insert({ game_id: game.id, letter, name, purse, rank, started_ms: startedMs, map_name: "small" })}`
    }
  }
  // The first release's leaderboard: g-over, and g-left, which it counted as played out and won.
  yield* sql`INSERT INTO leaders ${
    sql.insert([
      { name: "Ann", games: 2, wins: 2, nuggets: 230, best_purse: 200, best_game: "g-over", best_started_ms: Date.UTC(2026, 0, 1) },
      { name: "Bo", games: 1, wins: 0, nuggets: 50, best_purse: 50, best_game: "g-over", best_started_ms: Date.UTC(2026, 0, 1) },
      { name: "Cy", games: 1, wins: 0, nuggets: 20, best_purse: 20, best_game: "g-left", best_started_ms: Date.UTC(2026, 0, 2) }
    ])
  }`
})

/** The first release's archive opened by today's (its tables brought up to date), and what it then holds. */
const migrated = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* indexedByTheFirstRelease
  const archive = yield* makeArchive.pipe(
    Effect.provideService(ArchiveBackend, { database: "test", recordings: recordingFiles(freshDir()), claim: Effect.void, oneWriter: true })
  )
  const ran = yield* sql<{ name: string }>`SELECT name FROM effect_sql_migrations ORDER BY migration_id`
  const games = yield* sql<{ id: string; outcome: string; nuggets_left: number | null }>`SELECT id, outcome, nuggets_left FROM games ORDER BY id`
  const leaders = yield* archive.leaderboard()
  const refused = yield* Effect.either(sql`UPDATE games SET outcome = 'game over' WHERE id = 'g-over'`)
  const indexes = yield* sql.onDialectOrElse({
    pg: () => sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'games' AND indexname LIKE 'games\\_%' ORDER BY 1`,
    orElse: () => sql<{ name: string }>`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'games' AND sql IS NOT NULL ORDER BY 1`
  })
  return {
    ran: ran.map((row) => row.name),
    games: games.map((row) => [row.id, row.outcome, row.nuggets_left === null ? null : Number(row.nuggets_left)]),
    leaders: leaders.map((row) => [row.name, row.games, row.wins, row.nuggets, row.best.game]),
    refused: refused._tag === "Left",
    indexes: indexes.map((row) => row.name).filter((name) => !name.endsWith("_pkey"))
  }
})

const expected = {
  ran: ["archive", "outcomes", "notes"],
  games: [
    ["g-cut", "interrupted", 245],
    ["g-left", "stopped", 200],
    ["g-now", "playing", null],
    ["g-over", "over", 0],
    ["g-shut", "stopped", 140]
  ],
  // A stopped game counts as played, not won.
  leaders: [
    ["Ann", 3, 1, 240, "g-over"],
    ["Bo", 2, 0, 150, "g-shut"],
    ["Cy", 1, 0, 20, "g-left"]
  ],
  refused: true,
  // Made again with the table.
  indexes: ["games_by_digest", "games_by_map", "games_newest", "games_playing"]
}

describe("the archive's migration to the words of every game's end", () => {
  it.scoped("on SQLite: every outcome in today's words, the nuggets left, the leaderboard made again, only today's words taken, the indexes kept", () =>
    migrated.pipe(
      Effect.provide(SqliteClient.layer({ filename: join(freshDir(), "archive.db") }).pipe(Layer.provide(Reactivity.layer))),
      Effect.map((result) => expect(result).toEqual(expected))
    ))

  describe("on PostgreSQL", () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>
    beforeAll(async () => {
      database = await freshDatabase(inject("postgresUrl"))
    })
    afterAll(() => database?.drop())

    it.scoped("the same", () =>
      migrated.pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(database.url.href) }).pipe(Layer.provide(Reactivity.layer))),
        Effect.map((result) => expect(result).toEqual(expected))
      ), 30_000)
  })
})
