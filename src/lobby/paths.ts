/**
 * Every path of a lobby of `nuggets host`, written once: the host routes them, the lobby's
 * page and `join` ask for them, and the API's contract (`api.ts`) is declared on them. A
 * `:name` is filled in by `pathTo`. Plain strings, so that the page's bundle carries these
 * and nothing of the contract's machinery.
 */

/** The lobby's pages and feed. */
export const lobbyPaths = {
  /** The games being played, and a new one. */
  live: "/",
  /** Past games, a page at a time. */
  archive: "/archive",
  leaderboard: "/leaderboard",
  /** The lobby's Server-Sent Events (`feed.ts`). */
  feed: "/events",
  /** A game being played: the game's page, its feed and socket beside it. */
  game: "/games/:id/",
  /** A past game, replayed in the game's page. */
  replay: "/archive/:id/"
} as const

/** Where the JSON API lives: nothing else of the lobby is under it. */
export const apiRoot = "/api"

/** The JSON API's paths. */
export const apiPaths = {
  games: `${apiRoot}/games`,
  game: `${apiRoot}/games/:id`,
  /** A place in a game (matchmaking). */
  match: `${apiRoot}/match`,
  archive: `${apiRoot}/archive`,
  recording: `${apiRoot}/archive/:id/recording`,
  leaderboard: `${apiRoot}/leaderboard`,
  /** The API described in OpenAPI 3. */
  openApi: `${apiRoot}/openapi.json`
} as const

/** `path` with each `:name` filled in from `params`, as a URL's path carries it. */
export const pathTo = (path: string, params: Readonly<Record<string, string>>): string =>
  path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ""))

/** `path` followed by a query, if it has anything in it. */
export const withQuery = (path: string, query: URLSearchParams): string => (query.size > 0 ? `${path}?${query}` : path)
