import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Statement } from "@effect/sql/Statement"
import { Effect, Option } from "effect"
import type { RecordingFacts } from "./facts.js"
import type { GameId, Outcome } from "./model.js"
import { transaction } from "./transaction.js"

/**
 * The archive's SQL, every statement in one place (the tests ask SQLite how it runs the
 * queries here: each by an index). Each is written for SQLite and PostgreSQL alike, or
 * for each (`onDialectOrElse`): no `iif`, no sums of comparisons, every column a grouped
 * query selects either grouped or aggregated, every column an upsert's SET reads named
 * with its table. Rows come back as the tables hold them; `games.ts` makes them the
 * model's nouns.
 */

export interface GameRow {
  readonly id: string
  readonly map_name: string
  readonly map_digest: string
  readonly seed: number
  readonly variant: string
  readonly dialect: string
  readonly program: string
  readonly started_ms: number
  readonly duration_ms: number | null
  readonly moves: number | null
  readonly outcome: Outcome
  readonly failure: string | null
  readonly note: string | null
  readonly nuggets_left: number | null
}

export interface PlayerRow {
  readonly game_id: string
  readonly letter: string
  readonly name: string
  readonly purse: number
  readonly rank: number
}

export interface LeaderRow {
  readonly name: string
  readonly games: number
  readonly wins: number
  readonly nuggets: number
  readonly best_purse: number
  readonly best_game: string
}

/** What is known of a game when its host starts it, before its recording says more. */
export interface PlayingRow {
  readonly id: GameId
  readonly mapName: string
  readonly mapDigest: string
  readonly seed: number
  readonly variant: string
  readonly dialect: string
  readonly program: string
  readonly startedMs: number
}

/** Where a page starts: below this game in the newest-first order. */
export interface Cursor {
  readonly startedMs: number
  readonly id: GameId
}

export interface PageFilter {
  readonly player: string | undefined
  readonly map: string | undefined
  readonly cursor: Cursor | undefined
  /** Rows to fetch (one more than the page, to tell whether there is a next one). */
  readonly rows: number
}

type Sql = SqlClient.SqlClient

export const insertPlaying = (sql: Sql, row: PlayingRow) =>
  sql`INSERT INTO games ${
    sql.insert({
      id: row.id,
      map_name: row.mapName,
      map_digest: row.mapDigest,
      seed: row.seed,
      variant: row.variant,
      dialect: row.dialect,
      program: row.program,
      started_ms: row.startedMs,
      outcome: "playing"
    })
  }`

export const gameStatement = (sql: Sql, id: GameId): Statement<GameRow> => sql<GameRow>`SELECT * FROM games WHERE id = ${id}`

export const gameRow = (sql: Sql, id: GameId): Effect.Effect<Option.Option<GameRow>, SqlError> =>
  Effect.map(gameStatement(sql, id), (rows) => Option.fromNullable(rows[0]))

/** Down the partial index `games_playing`: the few games in play, whatever the size of the archive. */
export const playingStatement = (sql: Sql): Statement<{ id: string }> => sql<{ id: string }>`SELECT id FROM games WHERE outcome = 'playing'`

export const playingIds = (sql: Sql) => Effect.map(playingStatement(sql), (rows) => rows.map((row) => row.id))

/** Every id, for comparing with the files on disk at start (the one query that reads them all). */
export const allIds = (sql: Sql) => Effect.map(sql<{ id: string }>`SELECT id FROM games`, (rows) => rows.map((row) => row.id))

export const mapNameStatement = (sql: Sql, digest: string): Statement<{ map_name: string }> =>
  sql<{ map_name: string }>`SELECT map_name FROM games WHERE map_digest = ${digest} LIMIT 1`

/** The name an earlier game gave the map with this digest. */
export const mapNameOf = (sql: Sql, digest: string) =>
  Effect.map(mapNameStatement(sql, digest), (rows) => Option.fromNullable(rows[0]?.map_name))

export interface IndexedGame {
  readonly id: GameId
  readonly mapName: string
  readonly outcome: Outcome
  readonly failure: string | undefined
}

/** The rows of the games and players tables that hold a game made from its recording. */
export const indexedRows = (game: IndexedGame, facts: RecordingFacts) => ({
  game: {
    id: game.id,
    map_name: game.mapName,
    map_digest: facts.mapDigest,
    seed: facts.seed,
    variant: facts.variant,
    dialect: facts.dialect,
    program: facts.program,
    started_ms: facts.startedMs,
    duration_ms: facts.durationMs,
    moves: facts.moves,
    outcome: game.outcome,
    failure: game.failure ?? null,
    nuggets_left: facts.nuggetsLeft,
    note: facts.note ?? null
  },
  players: facts.standings.map((each) => ({
    game_id: game.id,
    letter: each.letter,
    name: each.name,
    purse: each.purse,
    rank: each.rank,
    started_ms: facts.startedMs,
    map_name: game.mapName
  }))
})

/** The outcomes the leaderboard counts: a game `stopped` is played, and only one `over` is won. */
const counted: ReadonlyArray<Outcome> = ["over", "stopped"]

/**
 * A game's row made from its recording, with its standings, and the leaderboard brought up
 * to date if it counts there. The caller has checked, in the same transaction, that the
 * game is not indexed yet (no row, or one still `playing`): each game counts once.
 */
export const writeIndexed = (sql: Sql, game: IndexedGame, facts: RecordingFacts) =>
  Effect.gen(function*() {
    const rows = indexedRows(game, facts)
    yield* sql`INSERT INTO games ${sql.insert(rows.game)} ON CONFLICT (id) DO UPDATE SET ${
      sql.update(rows.game, ["id", "map_name"])
    }`
    yield* sql`DELETE FROM players WHERE game_id = ${game.id}`
    if (rows.players.length > 0) yield* sql`INSERT INTO players ${sql.insert(rows.players)}`
    if (!counted.includes(game.outcome)) return
    // A name twice in one game (two players called Alice) counts once, with its better line.
    const byName = new Map<string, { name: string; rank: number; purse: number }>()
    for (const each of facts.standings) {
      const key = each.name.toLowerCase()
      const seen = byName.get(key)
      byName.set(key, seen ? { name: seen.name, rank: Math.min(seen.rank, each.rank), purse: Math.max(seen.purse, each.purse) } : each)
    }
    const better = sql.literal(betterBest)
    for (const each of byName.values()) {
      yield* sql`INSERT INTO leaders ${
        sql.insert({
          name: each.name,
          games: 1,
          wins: each.rank === 1 && game.outcome === "over" ? 1 : 0,
          nuggets: each.purse,
          best_purse: each.purse,
          best_game: game.id,
          best_started_ms: facts.startedMs
        })
      } ON CONFLICT (name) DO UPDATE SET
        games = leaders.games + 1,
        wins = leaders.wins + excluded.wins,
        nuggets = leaders.nuggets + excluded.nuggets,
        best_purse = CASE WHEN ${better} THEN excluded.best_purse ELSE leaders.best_purse END,
        best_game = CASE WHEN ${better} THEN excluded.best_game ELSE leaders.best_game END,
        best_started_ms = CASE WHEN ${better} THEN excluded.best_started_ms ELSE leaders.best_started_ms END`
    }
  })

/** The new game's purse beats the best so far: more nuggets, or as many earlier. (Every SET reads the old row.) */
const betterBest = "excluded.best_purse > leaders.best_purse OR (excluded.best_purse = leaders.best_purse AND " +
  "(excluded.best_started_ms, excluded.best_game) < (leaders.best_started_ms, leaders.best_game))"

/** Removes games from the index (their recordings are gone); the leaderboard is made again if one counted. */
export const removeGames = (sql: Sql, ids: ReadonlyArray<GameId>) =>
  ids.length === 0 ? Effect.void : transaction(sql, Effect.gen(function*() {
    const counting = yield* sql`SELECT id FROM games WHERE ${sql.in("outcome", counted)} AND ${sql.in("id", ids)} LIMIT 1`
    yield* sql`DELETE FROM players WHERE ${sql.in("game_id", ids)}`
    yield* sql`DELETE FROM games WHERE ${sql.in("id", ids)}`
    if (counting.length > 0) yield* rebuildLeaders(sql)
  }))

/**
 * The leaderboard computed from scratch, by the same rules as `writeIndexed` keeps it: a
 * name's best line in each game `over` or `stopped`, a win where it ranked first in one
 * `over`; its best purse, the earliest on a tie.
 */
export const rebuildLeaders = (sql: Sql) =>
  Effect.gen(function*() {
    yield* sql`DELETE FROM leaders`
    // A name's best is the same on each of its games' rows: grouping by it too changes no group.
    yield* sql`INSERT INTO leaders (name, games, wins, nuggets, best_purse, best_game, best_started_ms)
      SELECT name, count(*), sum(CASE WHEN rank = 1 AND outcome = 'over' THEN 1 ELSE 0 END), sum(purse),
        best_purse, best_game, best_started_ms FROM (
        SELECT p.name, g.outcome, min(p.rank) AS rank, max(p.purse) AS purse,
          first_value(max(p.purse)) OVER best AS best_purse,
          first_value(p.game_id) OVER best AS best_game,
          first_value(p.started_ms) OVER best AS best_started_ms
        FROM players p JOIN games g ON g.id = p.game_id
        WHERE ${sql.in("g.outcome", counted)}
        GROUP BY p.name, p.game_id, p.started_ms, g.outcome
        WINDOW best AS (PARTITION BY p.name ORDER BY max(p.purse) DESC, p.started_ms, p.game_id)
      ) AS per_game GROUP BY name, best_purse, best_game, best_started_ms`
  })

/**
 * A page of past games, newest first: down `games_newest` or `games_by_map`, or, for a
 * player, down `players_by_name` or `players_by_name_map`, from the cursor on.
 */
export const pastGamesStatement = (sql: Sql, filter: PageFilter): Statement<GameRow> => {
  const { player, map, cursor, rows } = filter
  if (player === undefined) {
    const where = [sql`outcome <> 'playing'`]
    if (map !== undefined) where.push(sql`map_name = ${map}`)
    if (cursor !== undefined) where.push(sql`(started_ms, id) < (${cursor.startedMs}, ${cursor.id})`)
    return sql<GameRow>`SELECT * FROM games WHERE ${sql.and(where)} ORDER BY started_ms DESC, id DESC LIMIT ${rows}`
  }
  const where = [sql`p.name = ${player}`, sql`g.outcome <> 'playing'`]
  if (map !== undefined) where.push(sql`p.map_name = ${map}`)
  if (cursor !== undefined) where.push(sql`(p.started_ms, p.game_id) < (${cursor.startedMs}, ${cursor.id})`)
  // A game once, however many of its players bear the name; PostgreSQL's DISTINCT selects what it orders by.
  const eachGame = sql.onDialectOrElse({ pg: () => sql`DISTINCT ON (p.started_ms, p.game_id) g.*`, orElse: () => sql`DISTINCT g.*` })
  return sql<GameRow>`SELECT ${eachGame} FROM players p JOIN games g ON g.id = p.game_id WHERE ${
    sql.and(where)
  } ORDER BY p.started_ms DESC, p.game_id DESC LIMIT ${rows}`
}

/** The standings of these games, by the primary key. */
export const playersStatement = (sql: Sql, ids: ReadonlyArray<GameId>): Statement<PlayerRow> =>
  sql<PlayerRow>`SELECT game_id, letter, name, purse, rank FROM players WHERE ${sql.in("game_id", ids)}`

/** The leaderboard: most wins, then most nuggets, down `leaders_ranked`; or one name's line. */
export const leadersStatement = (sql: Sql, player: string | undefined, limit: number): Statement<LeaderRow> =>
  player === undefined
    ? sql<LeaderRow>`SELECT * FROM leaders ORDER BY wins DESC, nuggets DESC, name LIMIT ${limit}`
    : sql<LeaderRow>`SELECT * FROM leaders WHERE name = ${player}`
