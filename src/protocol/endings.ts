import { GoldTotal } from "../core/constants.js"
import type { Ending } from "../core/life.js"
import { nuggetCount } from "./dialect.js"
import { standingsOf, type Summary } from "./summary.js"

/**
 * How a game ended, in one word each, the same wherever it is read: a recording's end
 * line, the archive and the lobby's API, `archive list`, the lobby, the game's page, the
 * terminal's standings and casts.
 * - `over`: the gold ran out; the most nuggets win.
 * - `stopped`: it ended with nuggets still on the map (its server shut down, whoever ran it
 *   ended it, its last player left, or no one came back to it): no one wins, and its
 *   standings are as they stood.
 * - `failed`: a defect in its server ended it.
 *
 * The archive has two more for a game without an end: `playing` (not yet) and
 * `interrupted` (its host died, and its recording stops where it did).
 */
export const gameEnds = ["over", "stopped", "failed"] as const
export type GameEnd = typeof gameEnds[number]

/** What a recording and the archive say of a game its host's operator ended. */
export const endedByOperator = "ended by the host"

/** The word for each way a game's life ends. */
export const endWords: Readonly<Record<Ending["_tag"], GameEnd>> = {
  Over: "over",
  Stopped: "stopped",
  ShutDown: "stopped",
  Failed: "failed"
}

/**
 * Only a game whose gold ran out is over, with winners: one that ended with nuggets on the
 * map was stopped. What a client, the page and the archive tell by the nuggets left.
 */
export const endOf = (nuggetsLeft: number): "over" | "stopped" => (nuggetsLeft > 0 ? "stopped" : "over")

/**
 * The nuggets left on the map at a game's end, as a client can tell: what its last GOLD
 * said was left, unless the summary's purses account for more of the spec's 250 (a
 * server that does not tell everyone of every nugget found leaves a client's count high).
 * Undefined when neither tells.
 */
export const nuggetsLeftAt = (summary: Summary, remaining: number | undefined): number | undefined => {
  const standings = standingsOf(summary)
  const unfound = standings === undefined || standings.length === 0
    ? undefined
    : Math.max(0, GoldTotal - standings.reduce((sum, each) => sum + each.purse, 0))
  return remaining === undefined ? unfound : unfound === undefined ? remaining : Math.min(remaining, unfound)
}

/** What heads the standings: `Game over`, `Game stopped`. */
export const endTitle = (end: GameEnd): string => `Game ${end}`

/** What a stopped game's standings say instead of a winner. */
export const noWinner = (nuggetsLeft: number): string => `No winner: ${nuggetCount(nuggetsLeft)} left on the map.`
