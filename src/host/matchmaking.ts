import { Data, Duration, Effect } from "effect"
import { causeWords } from "../net/errno.js"
import type { ErrorJson } from "../lobby/refusals.js"
import type { GamesJson, LiveGameJson, StartedGameJson } from "../lobby/schemas.js"

/**
 * Matchmaking from the terminal: given a lobby's address instead of a game's, find a game
 * with a free place there (the fullest, so that people play together), or have the lobby
 * open one; then the game is joined over UDP like any other.
 */

export class LobbyError extends Data.TaggedError("LobbyError")<{ readonly message: string }> {}

/** The game found: where to join it over UDP, and what to tell the player. */
export interface Match {
  readonly address: string
  readonly port: number
  readonly id: string
  readonly map: string | undefined
  /** The lobby opened it for this player: every game was full. */
  readonly opened: boolean
}

/** Whether `text` names a lobby (`http://HOST:PORT`) rather than a host. */
export const isLobbyAddress = (text: string): boolean => /^https?:\/\//i.test(text)

/** The lobby's address, checked: http(s), a host, no credentials; its path is ignored. */
export const lobbyUrl = (text: string): URL | undefined => {
  try {
    const url = new URL(text)
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "" && url.username === "" ? url : undefined
  } catch {
    return undefined
  }
}

/** The game to offer: a free place in the one with the most players in it, the oldest of those. */
export const bestGame = (games: ReadonlyArray<LiveGameJson>): LiveGameJson | undefined =>
  games
    .filter((game) => !game.over && game.freePlaces > 0)
    .map((game) => ({ game, playing: game.players.filter((player) => player.playing).length }))
    .sort((a, b) => b.playing - a.playing || a.game.started.localeCompare(b.game.started))[0]?.game

export const findGame = (url: URL, timeout: Duration.DurationInput): Effect.Effect<Match, LobbyError> =>
  Effect.gen(function*() {
    const lobby = `${url.protocol}//${url.host}`
    const ask = <T>(path: string, init: RequestInit = {}) =>
      Effect.tryPromise({
        try: async (signal) => {
          const response = await fetch(`${lobby}${path}`, {
            ...init,
            signal: AbortSignal.any([signal, AbortSignal.timeout(Duration.toMillis(timeout))]),
            headers: { accept: "application/json", ...(init.body === undefined ? {} : { "content-type": "application/json" }) }
          })
          const text = await response.text()
          let body: unknown
          try {
            body = JSON.parse(text)
          } catch {
            throw new LobbyError({ message: `${lobby} — not a nuggets lobby (it answered ${response.status} with no JSON)` })
          }
          if (!response.ok) throw new LobbyError({ message: `${lobby} — ${(body as ErrorJson).error ?? `it answered ${response.status}`}` })
          return body as T
        },
        catch: (error) =>
          error instanceof LobbyError
            ? error
            : new LobbyError({
              message: `${lobby} — cannot reach the lobby: ${
                (error as Error).name === "TimeoutError" ? "no answer" : causeWords((error as { cause?: unknown }).cause ?? error)
              }`
            })
      })
    const address = url.hostname.replace(/^\[|\]$/g, "")
    const { games } = yield* ask<GamesJson>("/api/games")
    if (!Array.isArray(games)) return yield* new LobbyError({ message: `${lobby} — not a nuggets lobby` })
    const found = bestGame(games)
    if (found !== undefined) return { address, port: found.port, id: found.id, map: found.map, opened: false }
    const opened = yield* ask<StartedGameJson>("/api/games", { method: "POST", body: "{}" }).pipe(
      Effect.mapError((error) => new LobbyError({ message: `${error.message} (every game is full, and no new one could be opened)` }))
    )
    const game = yield* Effect.option(ask<LiveGameJson>(`/api/games/${opened.id}`))
    return { address, port: opened.port, id: opened.id, map: game._tag === "Some" ? game.value.map : undefined, opened: true }
  })
