/**
 * The lobby's feed (`lobbyPaths.feed`, Server-Sent Events): what the host tells the lobby's
 * pages as it changes. Its `games` events carry what `GET /api/games` answers (`GamesJson`
 * of `api.ts`).
 */

/** The feed's events, by name. */
export const LobbyEvent = { hello: "hello", games: "games", archive: "archive" } as const

/** The feed's first event: what the new-game form offers. */
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
