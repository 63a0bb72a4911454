import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import { Data, Duration, Effect, Option } from "effect"
import { LobbyApi } from "../lobby/api.js"
import { isRefusal } from "../lobby/refusals.js"
import type { LiveGameJson } from "../lobby/schemas.js"
import { causeWords } from "../net/errno.js"

/**
 * Matchmaking from the terminal, `join`'s side of a lobby: given a lobby's address instead
 * of a game's, find a game with a free place there (the fullest, so that people play
 * together), or have the lobby open one; then the game is joined over UDP like any other.
 * It asks through the lobby's contract (`lobby/api.ts`), as a client HttpApi makes of it.
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

/** Why a lobby gave no answer to use, in the words of the one line `join` prints. */
const lobbyFailure = (lobby: string) => (error: unknown): Effect.Effect<never, LobbyError> => {
  const failure = (words: string) => Effect.fail(new LobbyError({ message: `${lobby} — ${words}` }))
  if (isRefusal(error)) return failure(error.error)
  // Not the contract's answer: a page, or a lobby of another kind.
  if (!HttpClientError.isHttpClientError(error)) return failure("not a nuggets lobby")
  if (error._tag === "RequestError") {
    // fetch's own error says only "fetch failed": what failed is its cause.
    const cause = error.cause instanceof Error && error.cause.cause !== undefined ? error.cause.cause : error.cause
    return failure(`cannot reach the lobby: ${causeWords(cause)}`)
  }
  // A status the contract does not name: its words, if it says any.
  const { response } = error
  return Effect.flatMap(Effect.option(response.json), (body) => {
    const said = Option.getOrUndefined(body) as { readonly error?: unknown } | undefined
    if (typeof said?.error === "string") return failure(said.error)
    return failure(Option.isSome(body) ? `it answered ${response.status}` : `not a nuggets lobby (it answered ${response.status} with no JSON)`)
  })
}

export const findGame = (url: URL, timeout: Duration.DurationInput): Effect.Effect<Match, LobbyError> =>
  Effect.gen(function*() {
    const lobby = `${url.protocol}//${url.host}`
    const client = yield* HttpApiClient.make(LobbyApi, { baseUrl: lobby })
    const ask = <A, E>(call: Effect.Effect<A, E>) =>
      call.pipe(
        Effect.catchAll(lobbyFailure(lobby)),
        Effect.timeoutFail({ duration: timeout, onTimeout: () => new LobbyError({ message: `${lobby} — cannot reach the lobby: no answer` }) })
      )
    const address = url.hostname.replace(/^\[|\]$/g, "")
    const { games } = yield* ask(client.games.list())
    const found = bestGame(games)
    if (found !== undefined) return { address, port: found.port, id: found.id, map: found.map, opened: false }
    const opened = yield* ask(client.games.start({ payload: {} })).pipe(
      Effect.mapError((error) => new LobbyError({ message: `${error.message} (every game is full, and no new one could be opened)` }))
    )
    const game = yield* Effect.option(ask(client.games.game({ path: { id: opened.id } })))
    return { address, port: opened.port, id: opened.id, map: Option.getOrUndefined(game)?.map, opened: true }
  }).pipe(Effect.provide(FetchHttpClient.layer))
