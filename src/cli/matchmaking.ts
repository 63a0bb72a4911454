import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import { Data, Duration, Effect, Option } from "effect"
import { LobbyApi } from "../lobby/api.js"
import { isRefusal, type Refusal } from "../lobby/refusals.js"
import { causeWords } from "../net/errno.js"

/**
 * Matchmaking from the terminal, `join`'s side of a lobby: given a lobby's address instead
 * of a game's, the lobby finds a place (`POST /api/match`: in the fullest game with one, so
 * that people play together, on whichever host of its fleet, or in a game it opens), and
 * holds it a few seconds; then the game is joined over UDP like any other.
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

/** Why a lobby gave no answer to use, in the words of the one line `join` prints. */
const lobbyFailure = (lobby: string) => (error: unknown): Effect.Effect<never, LobbyError> => {
  const failure = (words: string) => Effect.fail(new LobbyError({ message: `${lobby} — ${words}` }))
  if (error instanceof LobbyError) return Effect.fail(error)
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

/** The lobby's client, and a way to ask it that gives up after `timeout` with the lobby's words. */
const lobbyClient = (url: URL, timeout: Duration.DurationInput) =>
  Effect.gen(function*() {
    const lobby = `${url.protocol}//${url.host}`
    const client = yield* HttpApiClient.make(LobbyApi, { baseUrl: lobby })
    const ask = <A, E>(call: Effect.Effect<A, E>) =>
      call.pipe(
        Effect.catchAll(lobbyFailure(lobby)),
        Effect.timeoutFail({ duration: timeout, onTimeout: () => new LobbyError({ message: `${lobby} — cannot reach the lobby: no answer` }) })
      )
    return { lobby, client, ask }
  })

/** The names of the players a game of the lobby has had (none once it is over): what a newcomer's name should not be. */
export const namesIn = (url: URL, id: string, timeout: Duration.DurationInput): Effect.Effect<ReadonlyArray<string>, LobbyError> =>
  Effect.gen(function*() {
    const { client, ask } = yield* lobbyClient(url, timeout)
    const game = yield* ask(client.games.game({ path: { id } }))
    return game.live ? game.players.map((player) => player.name) : []
  }).pipe(Effect.provide(FetchHttpClient.layer))

export const findGame = (url: URL, timeout: Duration.DurationInput): Effect.Effect<Match, LobbyError> =>
  Effect.gen(function*() {
    const { lobby, client, ask } = yield* lobbyClient(url, timeout)
    // The lobby's own refusal says why there was no place: every game full, and no room for another.
    const place = yield* ask(client.games.match().pipe(
      Effect.catchIf(isRefusal, (refused) => Effect.fail(new LobbyError({ message: `${lobby} — ${(refused as Refusal).error} (every game is full, and no new one could be opened)` })))
    ))
    return { address: place.address, port: place.port, id: place.id, map: place.map, opened: place.opened }
  }).pipe(Effect.provide(FetchHttpClient.layer))
