import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The archive's tables, made by @effect/sql's Migrator from migrations bundled here (none
 * is read from disk: the single executable has no files), on SQLite or PostgreSQL. A
 * migration, once released, is never edited: a change is a new one, numbered after it.
 *
 * games: one row per recording.
 * players: each game's standings; its start and map copied in, so that a player's games,
 *   newest first, are one walk down an index (`players_by_name`, `players_by_name_map`).
 * leaders: each name's totals over the games that ended `over` or `stopped`, kept up to
 *   date as games are indexed, so the leaderboard is read, not computed.
 * Names and maps compare without letter case (`COLLATE NOCASE`): `alice` finds Alice. On
 * PostgreSQL, `nocase` is a collation of its own, made first (ICU, case ignored).
 */

/** Each dialect's words where SQLite and PostgreSQL differ, as SQL text; the rest is the same. */
const dialectWords = (sql: SqlClient.SqlClient) => ({
  /** Milliseconds since 1970 and seeds: SQLite's INTEGER is 64 bits, PostgreSQL's 32. */
  wide: sql.literal(sql.onDialectOrElse({ pg: () => "BIGINT", orElse: () => "INTEGER" })),
  /** A table kept in its primary key's order (SQLite's clustered tables; PostgreSQL has no such clause). */
  clustered: sql.literal(sql.onDialectOrElse({ sqlite: () => " WITHOUT ROWID", orElse: () => "" }))
})

const archive = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { wide, clustered } = dialectWords(sql)
  yield* sql.onDialectOrElse({
    pg: () => sql`CREATE COLLATION IF NOT EXISTS nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false)`,
    orElse: () => Effect.void
  })
  yield* sql`CREATE TABLE games (
    id TEXT PRIMARY KEY NOT NULL,
    map_name TEXT NOT NULL COLLATE NOCASE,
    map_digest TEXT NOT NULL,
    seed ${wide} NOT NULL,
    variant TEXT NOT NULL,
    dialect TEXT NOT NULL,
    program TEXT NOT NULL,
    started_ms ${wide} NOT NULL,
    duration_ms ${wide},
    moves INTEGER,
    outcome TEXT NOT NULL CHECK (outcome IN ('playing', 'game over', 'shut down', 'interrupted', 'failed')),
    failure TEXT
  )${clustered}`
  yield* sql`CREATE INDEX games_newest ON games (started_ms, id)`
  yield* sql`CREATE INDEX games_by_map ON games (map_name, started_ms, id)`
  yield* sql`CREATE INDEX games_by_digest ON games (map_digest)`
  yield* sql`CREATE INDEX games_playing ON games (id) WHERE outcome = 'playing'`
  yield* sql`CREATE TABLE players (
    game_id TEXT NOT NULL,
    letter TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE,
    purse INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    started_ms ${wide} NOT NULL,
    map_name TEXT NOT NULL COLLATE NOCASE,
    PRIMARY KEY (game_id, letter)
  )${clustered}`
  yield* sql`CREATE INDEX players_by_name ON players (name, started_ms, game_id)`
  yield* sql`CREATE INDEX players_by_name_map ON players (name, map_name, started_ms, game_id)`
  yield* sql`CREATE TABLE leaders (
    name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    nuggets INTEGER NOT NULL,
    best_purse INTEGER NOT NULL,
    best_game TEXT NOT NULL,
    best_started_ms ${wide} NOT NULL
  )${clustered}`
  yield* sql`CREATE INDEX leaders_ranked ON leaders (wins DESC, nuggets DESC, name)`
})

/** The first release's words for how a game ended, as its CHECK names them. */
const firstOutcomes = "CHECK (outcome IN ('playing', 'game over', 'shut down', 'interrupted', 'failed'))"
const outcomesCheck = "CONSTRAINT games_outcome CHECK (outcome IN ('playing', 'over', 'stopped', 'interrupted', 'failed'))"

/**
 * Every game's end in the words of `protocol/endings.ts`, and the nuggets it left: `game
 * over` is `over`, or `stopped` when nuggets were left (its last player left with every
 * letter used); `shut down` is `stopped`. Every recording so far hid 250 nuggets, and a
 * game's players hold what was found. The leaderboard, which now counts a stopped game as
 * played, is made again after (see `makeArchive`).
 */
const outcomes = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE games ADD COLUMN nuggets_left INTEGER`
  yield* sql`UPDATE games SET nuggets_left = 250 - (SELECT coalesce(sum(p.purse), 0) FROM players p WHERE p.game_id = games.id)
    WHERE outcome <> 'playing'`
  const newWords = "CASE WHEN outcome = 'shut down' OR (outcome = 'game over' AND nuggets_left > 0) THEN 'stopped' " +
    "WHEN outcome = 'game over' THEN 'over' ELSE outcome END"
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.all([
        // PostgreSQL names a column's CHECK after its table and column.
        sql`ALTER TABLE games DROP CONSTRAINT games_outcome_check`,
        sql.unsafe(`UPDATE games SET outcome = ${newWords}`),
        sql.unsafe(`ALTER TABLE games ADD ${outcomesCheck}`)
      ], { discard: true }),
    orElse: () => withDefinition(sql, "games", (definition) => definition.replace(firstOutcomes, outcomesCheck), { outcome: newWords })
  })
})

/**
 * SQLite cannot change a table's constraints: the table is made again from its own
 * definition as `change` makes it anew, its rows copied (`columns` says what a column's new
 * value is, else it is kept), and its indexes made again. Nothing refers to the table.
 */
const withDefinition = (
  sql: SqlClient.SqlClient,
  table: string,
  change: (definition: string) => string,
  columns: Readonly<Record<string, string>>
) =>
  Effect.gen(function*() {
    const [definition] = yield* sql<{ sql: string }>`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ${table}`
    const indexes = yield* sql<{ sql: string }>`SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ${table} AND sql IS NOT NULL`
    const changed = change(definition!.sql)
    if (changed === definition!.sql) return yield* Effect.dieMessage(`the table ${table} is not as its migrations made it`)
    const made = `${table}_new`
    yield* sql.unsafe(changed.replace(/^CREATE TABLE \S+/, `CREATE TABLE ${made}`))
    const names = yield* sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`
    const values = names.map(({ name }) => columns[name] ?? `"${name}"`).join(", ")
    yield* sql.unsafe(`INSERT INTO ${made} SELECT ${values} FROM ${table}`)
    yield* sql.unsafe(`DROP TABLE ${table}`)
    yield* sql.unsafe(`ALTER TABLE ${made} RENAME TO ${table}`)
    for (const index of indexes) yield* sql.unsafe(index.sql)
  })

/** Who ended a game, when not the game itself: its host's operator, say. */
const notes = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE games ADD COLUMN note TEXT`)

/** The migrations, in order: a database made before the last is brought up to it. */
export const migrations = { "1_archive": archive, "2_outcomes": outcomes, "3_notes": notes }

/** Brings the database's tables up to date; gives the migrations it ran. */
export const migrate = Migrator.make({})({ loader: Migrator.fromRecord(migrations) })
