import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import { Archive } from "../archive/archive.js"
import type { ArchiveError } from "../archive/errors.js"
import { LobbyApi, openApiDocument } from "../lobby/api.js"
import { apiPaths, pathTo } from "../lobby/paths.js"
import { BadRequest, Forbidden, maxBodyBytes, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized, Unavailable } from "../lobby/refusals.js"
import { NewGameJson } from "../lobby/schemas.js"
import type { GameRefused } from "./errors.js"
import { Host, type HostService } from "./host.js"
import { credentials, OperatorToken } from "./operator.js"
import { Admission } from "./admission.js"
import { gamesJson, pastGameJson } from "./json.js"
import { forwardedHeader, Lobby, type LobbyService } from "./lobby.js"

/**
 * What each endpoint of the lobby's API does (`lobby/api.ts` declares them): the games being
 * played and a new one, the archive, a recording, the leaderboard. A refusal is one of the
 * contract's, with its words; nothing else happens.
 */

/** Headers of the answer this request gets, whichever it is (a `location`, a `retry-after`). */
const answerHeaders = (headers: Record<string, string>) =>
  HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))

const refusedGame = {
  UnknownMap: BadRequest,
  BadRequest,
  Full: TooManyRequests,
  TooFast: TooManyRequests,
  CannotStart: Unavailable,
  Stopping: Unavailable
} as const satisfies Record<GameRefused["reason"], unknown>
const retryAfter: Partial<Record<GameRefused["reason"], string>> = { Full: "30", TooFast: "1" }

const gameRefused = (refused: GameRefused) => {
  const after = retryAfter[refused.reason]
  return Effect.zipRight(
    after === undefined ? Effect.void : answerHeaders({ "retry-after": after }),
    Effect.fail(new refusedGame[refused.reason]({ error: refused.message }))
  )
}

/** The archive failed under a query (a full disk, a broken database): the page says so, the host goes on. */
const archiveDown = (error: ArchiveError) => new Unavailable({ error: `the archive cannot answer: ${error.message}` })

/** No such game in the archive, or it failed. */
const archiveFailed = (error: ArchiveError) => error.reason === "UnknownGame" ? new NotFound({ error: error.message }) : archiveDown(error)

type Body = { readonly _tag: "Body"; readonly text: string } | { readonly _tag: "TooLarge" } | { readonly _tag: "Gone" }

/**
 * The request's body, `max` bytes at most: a larger one is answered without being read
 * (its Content-Length says so, or it is cut off as it comes), so that no request holds
 * more than that.
 */
const readBody = (request: HttpServerRequest.HttpServerRequest, max: number): Effect.Effect<Body> => {
  const declared = Number(request.headers["content-length"] ?? "0")
  if (declared > max) return Effect.succeed({ _tag: "TooLarge" })
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  return Effect.async<Body>((resume) => {
    const chunks: Array<Buffer> = []
    let length = 0
    const stop = () => {
      incoming.off("data", onData).off("end", onEnd).off("error", onGone).off("aborted", onGone)
    }
    const onData = (chunk: Buffer) => {
      length += chunk.length
      if (length > max) {
        stop()
        incoming.pause()
        return resume(Effect.succeed({ _tag: "TooLarge" }))
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed({ _tag: "Body", text: Buffer.concat(chunks).toString("utf8") }))
    }
    const onGone = () => {
      stop()
      resume(Effect.succeed({ _tag: "Gone" }))
    }
    incoming.on("data", onData).once("end", onEnd).once("error", onGone).once("aborted", onGone)
    return Effect.sync(stop)
  })
}

/** Who asks, by address: each client has its own pace of new games. */
const clientOf = (request: HttpServerRequest.HttpServerRequest) => Option.getOrElse(request.remoteAddress, () => "unknown")

/** A browser's request from a page of another site: any site could start games here otherwise. */
const crossSite = (headers: Readonly<Record<string, string | undefined>>): boolean => {
  const origin = headers["origin"]
  return origin !== undefined && origin !== `http://${headers["host"]}` && origin !== `https://${headers["host"]}`
}

const decodeNewGame = Schema.decodeUnknownEither(NewGameJson, { onExcessProperty: "error", errors: "first" })

const fieldError = (issue: { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }) =>
  issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message.replace(/^is unexpected.*/, "is not a field it takes")}`

/** `{map?, seed?, ...}`: the fields a new game takes, as the contract names them. */
const newGameFields = `{${Object.keys(NewGameJson.fields).map((name) => `${name}?`).join(", ")}}`

/**
 * `POST /api/games`, read by hand rather than by HttpApi: the body is held to its limit as
 * it comes, and each way it can be wrong is said in words.
 */
const startGame = (lobby: LobbyService, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (crossSite(request.headers)) return yield* new Forbidden({ error: "only the lobby's own page may start games here" })
    const body = yield* readBody(request, maxBodyBytes)
    if (body._tag === "TooLarge") {
      yield* answerHeaders({ connection: "close" })
      return yield* new PayloadTooLarge({ error: `the body is larger than ${maxBodyBytes} bytes` })
    }
    if (body._tag === "Gone") return yield* new BadRequest({ error: "the request ended before its body" })
    const parsed = Either.try(() => (body.text.trim() === "" ? {} : JSON.parse(body.text) as unknown))
    if (Either.isLeft(parsed)) return yield* new BadRequest({ error: `the body is not JSON: ${(parsed.left as Error).message}` })
    if (typeof parsed.right !== "object" || parsed.right === null || Array.isArray(parsed.right)) {
      return yield* new BadRequest({ error: `the body must be a JSON object: ${newGameFields}` })
    }
    const wanted = decodeNewGame(parsed.right)
    if (Either.isLeft(wanted)) {
      const words = ParseResult.ArrayFormatter.formatErrorSync(wanted.left).map(fieldError).join("; ")
      return yield* new BadRequest({ error: `the body: ${words}` })
    }
    const forwarded = request.headers[forwardedHeader] !== undefined
    const started = yield* lobby.start(wanted.right, { forwarded, client: clientOf(request) }).pipe(Effect.catchAll(gameRefused))
    yield* answerHeaders({ location: pathTo(apiPaths.game, { id: started.id }) })
    return started
  })

/** `DELETE /api/games/ID`: the operator ends a game of this host; everyone is told to quit, and the recording says who ended it. */
const endGame = (host: HostService, lobby: LobbyService, token: Option.Option<string>, id: string, authorization: string | undefined) =>
  Effect.gen(function*() {
    switch (credentials(token, authorization)) {
      case "missing":
        yield* answerHeaders({ "www-authenticate": `Bearer realm="nuggets host"` })
        return yield* new Unauthorized({ error: "the operator's token is needed: Authorization: Bearer TOKEN" })
      case "wrong":
        yield* Effect.logWarning("an operator's request refused: not the host's token")
        return yield* new Forbidden({
          error: Option.isNone(token) ? "this host takes no operator's request (it was started without --admin-token-file)" : "not the host's token"
        })
    }
    const game = host.find(id)
    if (game === undefined) {
      const elsewhere = lobby.game(id)
      return yield* new NotFound({ error: elsewhere === undefined ? `no game ${id} being played here` : `game ${id} is on another host: ask it (${elsewhere.page})` })
    }
    yield* Effect.logInfo(`game ${id}: ended by the host's operator`)
    yield* game.live.endByOperator
    return { id, end: "stopped" as const }
  })

const gamesHandlers = HttpApiBuilder.group(LobbyApi, "games", (handlers) =>
  Effect.gen(function*() {
    const host = yield* Host
    const lobby = yield* Lobby
    const admission = yield* Admission
    const token = yield* OperatorToken
    const archive = yield* Archive
    return handlers
      .handle("list", () => Effect.sync(() => gamesJson(host.settings, lobby.games(), admission.refusing())))
      .handleRaw("start", ({ request }) => startGame(lobby, request))
      .handleRaw("match", ({ request }) =>
        crossSite(request.headers)
          ? Effect.fail(new Forbidden({ error: "only the lobby's own page may ask for a place here" }))
          : lobby.match({ client: clientOf(request) }).pipe(Effect.catchAll(gameRefused)))
      .handleRaw("end", ({ path: { id }, request }) => endGame(host, lobby, token, id, request.headers["authorization"]))
      .handle("game", ({ path: { id } }) => {
        const live = lobby.game(id)
        if (live !== undefined) return Effect.succeed(live)
        return archive.game(id).pipe(Effect.mapBoth({ onFailure: archiveFailed, onSuccess: pastGameJson }))
      })
  }))

const archiveHandlers = HttpApiBuilder.group(LobbyApi, "archive", (handlers) =>
  Effect.gen(function*() {
    const archive = yield* Archive
    return handlers
      .handle("pastGames", ({ urlParams: { before, limit, map, player } }) =>
        archive.pastGames({ player, map, before, limit }).pipe(
          Effect.mapBoth({
            onFailure: (error) => (error.reason === "UnknownGame" ? new BadRequest({ error: `before: no game ${before}` }) : archiveDown(error)),
            onSuccess: (page) => ({ games: page.games.map(pastGameJson), next: page.next ?? null })
          })
        ))
      .handle("recording", ({ path: { id } }) =>
        // The recording the archive keeps for that id: no path from the request is ever opened.
        archive.recording(id).pipe(
          Effect.mapBoth({
            onFailure: archiveFailed,
            onSuccess: (recorded) =>
              HttpServerResponse.uint8Array(recorded, {
                contentType: "application/x-ndjson",
                headers: { "content-length": String(recorded.length), "content-disposition": `attachment; filename="${id}.ndjson"` }
              })
          })
        ))
      .handle("leaderboard", ({ urlParams: { limit, player } }) =>
        archive.leaderboard({ player, limit }).pipe(Effect.mapBoth({ onFailure: archiveDown, onSuccess: (leaders) => ({ leaders }) })))
  }))

const descriptionHandlers = HttpApiBuilder.group(LobbyApi, "description", (handlers) =>
  handlers.handle("openApi", () => Effect.sync(openApiDocument)))

/** Every endpoint's handler, with the host and the archive they answer from. */
export const apiHandlers = Layer.mergeAll(gamesHandlers, archiveHandlers, descriptionHandlers)
