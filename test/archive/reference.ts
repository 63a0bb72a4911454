import type { Outcome } from "../../src/archive/model.js"

/**
 * The archive's queries done the plain way, over a list of games held in memory: what the
 * indexed SQL must agree with. Names and maps compare without letter case, as the archive's do.
 */
export interface ReferenceGame {
  readonly id: string
  readonly startedMs: number
  readonly map: string
  readonly outcome: Outcome
  readonly players: ReadonlyArray<{ readonly letter: string; readonly name: string; readonly purse: number }>
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** Each player's rank: one more than the players with more nuggets. */
export const referenceStandings = (game: ReferenceGame) =>
  game.players
    .map((each) => ({ rank: 1 + game.players.filter((other) => other.purse > each.purse).length, ...each }))
    .sort((a, b) => a.rank - b.rank || (a.letter < b.letter ? -1 : 1))

/** Past games with these filters, newest first (ties by id, last first). */
export const referencePastGames = (games: ReadonlyArray<ReferenceGame>, filter: { player?: string; map?: string }) =>
  games
    .filter((game) => game.outcome !== "playing")
    .filter((game) => filter.map === undefined || same(game.map, filter.map))
    .filter((game) => filter.player === undefined || game.players.some((each) => same(each.name, filter.player!)))
    .sort((a, b) => b.startedMs - a.startedMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))

/**
 * Per name, over the games that ended `over` or `stopped`: its best line in each, a win
 * where it ranked first in a game over, its best purse (the earliest on a tie).
 */
export const referenceLeaderboard = (games: ReadonlyArray<ReferenceGame>) => {
  const board = new Map<string, { name: string; games: number; wins: number; nuggets: number; best: { game: string; purse: number; startedMs: number } }>()
  const chronological = [...games].sort((a, b) => a.startedMs - b.startedMs || (a.id < b.id ? -1 : 1))
  for (const game of chronological.filter((each) => each.outcome === "over" || each.outcome === "stopped")) {
    const lines = new Map<string, { rank: number; purse: number }>()
    for (const each of referenceStandings(game)) {
      const key = each.name.toLowerCase()
      const seen = lines.get(key)
      lines.set(key, { rank: Math.min(seen?.rank ?? Infinity, each.rank), purse: Math.max(seen?.purse ?? -1, each.purse) })
    }
    for (const [key, line] of lines) {
      const entry = board.get(key) ?? { name: key, games: 0, wins: 0, nuggets: 0, best: { game: game.id, purse: -1, startedMs: 0 } }
      entry.games++
      if (line.rank === 1 && game.outcome === "over") entry.wins++
      entry.nuggets += line.purse
      if (line.purse > entry.best.purse) entry.best = { game: game.id, purse: line.purse, startedMs: game.startedMs }
      board.set(key, entry)
    }
  }
  return [...board.values()]
    .sort((a, b) => b.wins - a.wins || b.nuggets - a.nuggets || (a.name < b.name ? -1 : 1))
    .map(({ name, games, wins, nuggets, best }) => ({ name, games, wins, nuggets, best: { game: best.game, purse: best.purse } }))
}
