/**
 * What the lobby of `nuggets host` answers (the JSON API, `/api/...`, and the lobby's feed,
 * `/events`): the contract between the host and the lobby page, which imports these types,
 * and any script. Plain JSON: times are ISO 8601, durations milliseconds.
 */

export const LobbyEvent = { hello: "hello", games: "games", archive: "archive" } as const

export interface LivePlayer {
  readonly letter: string
  readonly name: string
  readonly purse: number
  /** Still in the game (false once it quit). */
  readonly playing: boolean
}

/** A game being played: `GET /api/games`, `GET /api/games/ID`. */
export interface LiveGameJson {
  readonly id: string
  readonly live: true
  readonly map: string
  /** Its UDP port: what `nuggets join` and any CS50 client need, with the address. */
  readonly port: number
  readonly variant: string
  readonly dialect: string
  readonly started: string
  readonly players: ReadonlyArray<LivePlayer>
  /** Whether the protocol's one spectator is watching. */
  readonly spectator: boolean
  readonly nuggetsLeft: number
  /** Pages watching it in a browser. */
  readonly watchers: number
  /** Players who may still join (a letter each; players who quit keep theirs). */
  readonly freePlaces: number
  readonly over: boolean
  /** The line to type to play it: `nuggets join ADDRESS PORT NAME`. */
  readonly join: string
  /** Its page: watch it, and play it in the browser. */
  readonly page: string
}

export interface GamesJson {
  readonly games: ReadonlyArray<LiveGameJson>
  /** The maps a new game may be played on. */
  readonly maps: ReadonlyArray<string>
  /** The most games the host runs at once. */
  readonly maxGames: number
}

/** `POST /api/games`: every field may be left out (the next map in turn, a random seed, the host's variant and dialect). */
export interface NewGameJson {
  readonly map?: string
  readonly seed?: number
  readonly variant?: string
  readonly dialect?: string
}

/** The answer to `POST /api/games` (201). */
export interface StartedGameJson {
  readonly id: string
  readonly port: number
}

export interface StandingJson {
  readonly rank: number
  readonly letter: string
  readonly name: string
  readonly purse: number
}

/** A game of the archive: `GET /api/archive`, and `GET /api/games/ID` once it is over. */
export interface PastGameJson {
  readonly id: string
  readonly live: false
  readonly map: string
  readonly seed: number
  readonly variant: string
  readonly dialect: string
  readonly program: string
  readonly started: string
  readonly durationMs: number | null
  readonly moves: number | null
  /** playing (its host died and has not started again), game over, shut down, interrupted, failed. */
  readonly outcome: string
  readonly failure: string | null
  readonly standings: ReadonlyArray<StandingJson>
  readonly winners: ReadonlyArray<string>
  /** Where the page replays it. */
  readonly replay: string
  /** The recording itself (newline-delimited JSON, `nuggets replay FILE` plays it). */
  readonly recording: string
}

export interface ArchivePageJson {
  readonly games: ReadonlyArray<PastGameJson>
  /** `before` for the next page, when there is one. */
  readonly next: string | null
}

export interface LeaderJson {
  readonly name: string
  readonly games: number
  readonly wins: number
  readonly nuggets: number
  readonly best: { readonly game: string; readonly purse: number }
}

export interface LeaderboardJson {
  readonly leaders: ReadonlyArray<LeaderJson>
}

/** Every refusal: a 4xx (or 503) status and this. */
export interface ErrorJson {
  readonly error: string
}

/** The lobby feed's first event: what the new-game form offers. */
export interface LobbyHello {
  readonly maps: ReadonlyArray<string>
  readonly variants: ReadonlyArray<string>
  readonly dialects: ReadonlyArray<string>
  readonly variant: string
  readonly dialect: string
  readonly maxGames: number
}

/** The archive changed (a game was added): how many games it has taken since the host started. */
export interface ArchiveChanged {
  readonly archived: number
}

/** A game's id, as the archive makes them: `20250601-143205-k3f9`. Nothing else names a game in a path. */
export const gameIdPattern = /^\d{8}-\d{6}-[a-z0-9]{4}$/
