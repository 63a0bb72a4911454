import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import type { Variant } from "../core/rules.js"
import type { Dialect } from "../protocol/dialect.js"
import { ArchiveError } from "./errors.js"
import type { ArchivedGame, GameId } from "./model.js"
import { gameRow, type GameRow, type PlayerRow, playersStatement } from "./store.js"

/** Rows of the index made into the model's games: what the archive tells of a game. */

/** Games from their rows and their players' rows. */
export const toGames = (rows: ReadonlyArray<GameRow>, players: ReadonlyArray<PlayerRow>): Array<ArchivedGame> => {
  const byGame = new Map<string, Array<PlayerRow>>()
  for (const player of players) {
    const list = byGame.get(player.game_id)
    if (list) list.push(player)
    else byGame.set(player.game_id, [player])
  }
  return rows.map((row) => {
    const standings = (byGame.get(row.id) ?? [])
      .sort((a, b) => a.rank - b.rank || a.letter.localeCompare(b.letter))
      .map(({ rank, letter, name, purse }) => ({ rank, letter, name, purse }))
    return {
      id: row.id,
      map: row.map_name,
      mapDigest: row.map_digest,
      seed: row.seed,
      variant: row.variant as Variant,
      dialect: row.dialect as Dialect,
      program: row.program,
      started: new Date(row.started_ms).toISOString(),
      durationMs: row.duration_ms ?? undefined,
      moves: row.moves ?? undefined,
      outcome: row.outcome,
      failure: row.failure ?? undefined,
      note: row.note ?? undefined,
      standings,
      winners: row.outcome === "over" ? standings.filter((each) => each.rank === 1).map((each) => each.name) : [],
      nuggetsLeft: row.nuggets_left ?? undefined
    }
  })
}

export const unknownGame = (id: GameId) =>
  new ArchiveError({ reason: "UnknownGame", message: `no game ${JSON.stringify(id)} in the archive` })

/** These rows as games, with their standings (one more query, by the players' primary key). */
export const withStandings = (sql: SqlClient.SqlClient, rows: ReadonlyArray<GameRow>): Effect.Effect<Array<ArchivedGame>, SqlError> =>
  rows.length === 0
    ? Effect.succeed([])
    : Effect.map(playersStatement(sql, rows.map((row) => row.id)), (players) => toGames(rows, players))

/** One game; `UnknownGame` if the index has no row for it. */
export const gameById = (sql: SqlClient.SqlClient, id: GameId): Effect.Effect<ArchivedGame, ArchiveError | SqlError> =>
  gameRow(sql, id).pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(unknownGame(id)), onSome: Effect.succeed })),
    Effect.flatMap((row) => withStandings(sql, [row])),
    Effect.map((games) => games[0]!)
  )
