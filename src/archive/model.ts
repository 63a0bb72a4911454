import type { Effect, Scope } from "effect"
import type { Variant } from "../core/rules.js"
import type { LineFile, RecordingError } from "../recording/lines.js"
import type { Dialect } from "../protocol/dialect.js"
import type { GameEnd } from "../protocol/endings.js"
import type { Standing } from "../recording/format.js"

/**
 * The archive's nouns: what it tells of a game, a page of games, a leaderboard line, and
 * what the host tells it. Plain data, ready for JSON.
 */

/** A game's id, and its recording's (`20250601-143205-k3f9`: a file `ID.ndjson` in a data directory). */
export type GameId = string

/**
 * How a game ended: `over`, `stopped` or `failed`, the words of every game's end (see
 * `protocol/endings.ts`), or one of the archive's own for a game without an end:
 * `playing`, not yet (or its host died, until the next start marks it `interrupted`);
 * `interrupted`, its host died, and the recording stops where it did.
 */
export const outcomes = ["playing", "over", "stopped", "interrupted", "failed"] as const satisfies ReadonlyArray<
  GameEnd | "playing" | "interrupted"
>
export type Outcome = typeof outcomes[number]

/** A player's line in a game's standings, as its recording ends with it: most nuggets first; equal purses share a rank. */
export type { Standing }

export interface ArchivedGame {
  readonly id: GameId
  /** The map's name as the host knew it (else `map` and its digest). */
  readonly map: string
  readonly mapDigest: string
  readonly seed: number
  readonly variant: Variant
  readonly dialect: Dialect
  /** The version of nuggets that played it: only that version replays it. */
  readonly program: string
  /** When it started, ISO 8601. */
  readonly started: string
  /** Milliseconds from the start to the recording's last line; undefined while playing. */
  readonly durationMs: number | undefined
  /** Messages the game took (keys, joins); undefined while playing. */
  readonly moves: number | undefined
  readonly outcome: Outcome
  /** What went wrong, for a `failed` game. */
  readonly failure: string | undefined
  /** Who ended it, when not the game itself (`ended by the host`). */
  readonly note: string | undefined
  /** Everyone who joined, best first; the standings when it stopped for an interrupted game, if they could be replayed. */
  readonly standings: ReadonlyArray<Standing>
  /** The names ranked first in a game whose gold ran out (`over`); none otherwise. */
  readonly winners: ReadonlyArray<string>
  /** The nuggets still on the map when it ended (or its recording stops); undefined while playing. */
  readonly nuggetsLeft: number | undefined
}

/** The most games one page holds, and how many when a query does not say. */
export const pageSize = { default: 20, max: 100 } as const

export interface PastGamesQuery {
  /** Only games this name played in (letter case ignored). */
  readonly player?: string | undefined
  /** Only games on this map (letter case ignored). */
  readonly map?: string | undefined
  /** Only games that started before this one: the `next` of the page before. */
  readonly before?: GameId | undefined
  /** 1..`pageSize.max`; `pageSize.default` when not given. Out of range, brought within it. */
  readonly limit?: number | undefined
}

/** Past games (every outcome but `playing`), newest first. */
export interface PastGamesPage {
  readonly games: ReadonlyArray<ArchivedGame>
  /** The cursor for the next page (`before`), when there are more. */
  readonly next: GameId | undefined
}

/**
 * A name's record over the games that ended, `over` or `stopped`: each counts as played,
 * and only one whose gold ran out can be won. A game interrupted or failed is not counted.
 */
export interface Leader {
  readonly name: string
  readonly games: number
  /** Games it won: ranked first in a game `over` (a tie for first is a win for each). */
  readonly wins: number
  /** Nuggets over all those games. */
  readonly nuggets: number
  /** Its largest purse, and the game (the earliest, on a tie). */
  readonly best: { readonly game: GameId; readonly purse: number }
}

export interface LeaderboardQuery {
  /** Only this name's line (letter case ignored). */
  readonly player?: string | undefined
  /** 1..`pageSize.max`; `pageSize.default` when not given. */
  readonly limit?: number | undefined
}

/** What the host knows of a game it starts, besides what its recording will say. */
export interface GameStart {
  /** The map's name as the host offers it (its file name without `.txt`, say). */
  readonly mapName: string
  /** The map's text: the archive keeps its digest, as the recording does. */
  readonly mapText: string
  readonly seed: number
  readonly variant: Variant
  readonly dialect: Dialect
}

/** A game the archive has a place for: its id, and how its recorder opens its recording (a new one). */
export interface StartedGame {
  readonly id: GameId
  readonly recording: Effect.Effect<LineFile, RecordingError, Scope.Scope>
}

/**
 * The index as the archive's owner found it when it opened it, damaged: what was found
 * (SQLite's own words), and where the damaged file now is, kept beside the new one.
 */
export interface Repaired {
  readonly found: string
  readonly movedTo: string
  /** The name it gave each game's map, as far as they could still be read (see `formerMapNames`). */
  readonly mapNames: ReadonlyArray<readonly [game: GameId, name: string]>
}

/** What `reconcile` found in the data directory and did. */
export interface Reconciled {
  /** The index was damaged and set aside: made again from the recordings (then `indexed` is every game). */
  readonly repaired?: Repaired
  /** Recordings on disk that had no row, now indexed. */
  readonly indexed: ReadonlyArray<GameId>
  /** Games that were in play when their host died, now `interrupted`. */
  readonly interrupted: ReadonlyArray<GameId>
  /** Rows whose recording is gone (deleted by hand, never written) or can no longer be read: removed from the index. */
  readonly removed: ReadonlyArray<GameId>
  /** Recordings that cannot be indexed, with why; the files are left as they are. */
  readonly skipped: ReadonlyArray<{ readonly file: string; readonly reason: string }>
}

/** What the host knows of a map, for naming the maps of recordings found on disk. */
export interface KnownMap {
  readonly name: string
  readonly mapText: string
}
