import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Either, ParseResult, Schema } from "effect"
import type { ArchiveService } from "../archive/archive.js"
import type { ArchiveError } from "../archive/errors.js"
import { pageSize } from "../archive/model.js"
import { variants } from "../core/rules.js"
import { type Dialect, dialectNamed } from "../protocol/dialect.js"
import { safeHeaders } from "../web/headers.js"
import {
  type ArchivePageJson,
  type ErrorJson,
  gameIdPattern,
  type GamesJson,
  type LeaderboardJson,
  type StartedGameJson
} from "../lobby/api.js"
import type { GameRefused } from "./errors.js"
import type { HostService } from "./host.js"
import { liveGameJson, pastGameJson } from "./json.js"

/**
 * The lobby's JSON API, which the lobby page uses and scripts can: the games being played
 * (and a new one), the archive, a recording, the leaderboard. Every refusal is JSON,
 * `{"error": "..."}`, with its status, and changes nothing.
 */

/** The largest body `POST /api/games` reads: its four fields take a hundred bytes. */
export const maxBodyBytes = 4096

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(JSON.stringify(body), {
    status,
    contentType: "application/json; charset=utf-8",
    headers: { ...safeHeaders, ...headers }
  })

export const jsonError = (status: number, error: string, headers: Record<string, string> = {}) =>
  json(status, { error } satisfies ErrorJson, headers)

const refusedStatus: Record<GameRefused["reason"], number> = {
  UnknownMap: 400,
  BadRequest: 400,
  Full: 429,
  TooFast: 429,
  CannotStart: 503,
  Stopping: 503
}
const refusedHeaders: Partial<Record<GameRefused["reason"], Record<string, string>>> = {
  Full: { "retry-after": "30" },
  TooFast: { "retry-after": "1" }
}

const gameRefused = (refused: GameRefused) =>
  jsonError(refusedStatus[refused.reason], refused.message, refusedHeaders[refused.reason] ?? {})

/** The archive failed under a query (a full disk, a broken database): the page says so, the host goes on. */
const archiveFailed = (error: ArchiveError) =>
  error.reason === "UnknownGame" ? jsonError(404, error.message) : jsonError(503, `the archive cannot answer: ${error.message}`)

/** What `POST /api/games` reads: any field may be left out; a field it does not know is a mistake worth saying. */
const NewGame = Schema.Struct({
  map: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  seed: Schema.optional(Schema.Int.pipe(Schema.between(0, Number.MAX_SAFE_INTEGER))),
  variant: Schema.optional(Schema.Literal(...variants)),
  dialect: Schema.optional(Schema.String.pipe(Schema.filter((name) => dialectNamed(name) !== undefined, {
    message: () => "a dialect: 2019 or 2021 (cs50-2021)"
  })))
})
const decodeNewGame = Schema.decodeUnknownEither(NewGame, { onExcessProperty: "error", errors: "first" })

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

/** A browser's request from a page of another site: any site could start games here otherwise. */
const crossSite = (headers: Readonly<Record<string, string | undefined>>): boolean => {
  const origin = headers["origin"]
  return origin !== undefined && origin !== `http://${headers["host"]}` && origin !== `https://${headers["host"]}`
}

const newGame = (games: HostService) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (crossSite(request.headers)) return jsonError(403, "only the lobby's own page may start games here")
    const body = yield* readBody(request, maxBodyBytes)
    if (body._tag === "TooLarge") return jsonError(413, `the body is larger than ${maxBodyBytes} bytes`, { connection: "close" })
    if (body._tag === "Gone") return jsonError(400, "the request ended before its body")
    let parsed: unknown
    try {
      parsed = body.text.trim() === "" ? {} : JSON.parse(body.text)
    } catch (error) {
      return jsonError(400, `the body is not JSON: ${(error as Error).message}`)
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return jsonError(400, "the body must be a JSON object: {map?, seed?, variant?, dialect?}")
    }
    const wanted = decodeNewGame(parsed)
    if (Either.isLeft(wanted)) {
      return jsonError(400, `the body: ${ParseResult.ArrayFormatter.formatErrorSync(wanted.left).map(fieldError).join("; ")}`)
    }
    const { dialect, map, seed, variant } = wanted.right
    const started = yield* Effect.either(games.request({
      map,
      seed,
      variant,
      dialect: dialect === undefined ? undefined : (dialectNamed(dialect) as Dialect)
    }))
    if (Either.isLeft(started)) return gameRefused(started.left)
    return json(201, { id: started.right.id, port: started.right.port } satisfies StartedGameJson, {
      location: `/api/games/${started.right.id}`
    })
  })

const fieldError = (issue: { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }) =>
  issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message.replace(/^is unexpected.*/, "is not a field it takes")}`

/** A number from the query string, or why not. */
const wholeParam = (text: string | undefined, name: string): Either.Either<number | undefined, string> => {
  if (text === undefined || text === "") return Either.right(undefined)
  return /^\d{1,6}$/.test(text) ? Either.right(Number(text)) : Either.left(`${name} must be a whole number, not ${JSON.stringify(text)}`)
}

const searchParam = (request: HttpServerRequest.HttpServerRequest, name: string): string | undefined => {
  const value = new URL(request.url, "http://lobby").searchParams.get(name)
  return value === null ? undefined : value
}

/** A page's `limit` from the query string: none, or 1 to the most a page holds; or why not. */
const pageLimit = (request: HttpServerRequest.HttpServerRequest): Either.Either<number | undefined, string> =>
  Either.flatMap(wholeParam(searchParam(request, "limit"), "limit"), (limit) =>
    limit !== undefined && (limit < 1 || limit > pageSize.max) ? Either.left(`limit must be 1 to ${pageSize.max}, not ${limit}`) : Either.right(limit))

/** The API's routes, each with the games being played and the archive. */
export const apiRoutes = (games: HostService, archive: ArchiveService) => {
  const gameId = Effect.map(HttpRouter.params, (params) => params["id"] ?? "")

  const listGames = Effect.sync(() =>
    json(200, {
      games: games.running().map((game) => liveGameJson(game, games.settings)),
      maps: games.settings.maps.map((each) => each.name),
      maxGames: games.settings.maxGames
    } satisfies GamesJson)
  )

  const oneGame = Effect.gen(function*() {
    const id = yield* gameId
    if (!gameIdPattern.test(id)) return jsonError(404, `no game ${JSON.stringify(id)}`)
    const live = games.find(id)
    if (live !== undefined) return json(200, liveGameJson(live, games.settings))
    return yield* archive.game(id).pipe(
      Effect.map((past) => json(200, pastGameJson(past))),
      Effect.catchAll(archiveFailed)
    )
  })

  const pastGames = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const limit = pageLimit(request)
    if (Either.isLeft(limit)) return jsonError(400, limit.left)
    const before = searchParam(request, "before") || undefined
    if (before !== undefined && !gameIdPattern.test(before)) return jsonError(400, `before: no game ${JSON.stringify(before)}`)
    return yield* archive.pastGames({
      player: searchParam(request, "player"),
      map: searchParam(request, "map"),
      before,
      limit: limit.right
    }).pipe(
      Effect.map((page) => json(200, { games: page.games.map(pastGameJson), next: page.next ?? null } satisfies ArchivePageJson)),
      Effect.catchAll((error) => error.reason === "UnknownGame" ? Effect.succeed(jsonError(400, `before: no game ${before}`)) : Effect.succeed(archiveFailed(error)))
    )
  })

  const recording = Effect.gen(function*() {
    const id = yield* gameId
    if (!gameIdPattern.test(id)) return jsonError(404, `no game ${JSON.stringify(id)}`)
    // The recording the archive keeps for that id: no path from the request is ever opened.
    const recorded = yield* Effect.either(archive.recording(id))
    if (Either.isLeft(recorded)) return archiveFailed(recorded.left)
    return HttpServerResponse.uint8Array(recorded.right, {
      contentType: "application/x-ndjson",
      headers: {
        ...safeHeaders,
        "content-length": String(recorded.right.length),
        "content-disposition": `attachment; filename="${id}.ndjson"`
      }
    })
  })

  const leaderboard = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const limit = pageLimit(request)
    if (Either.isLeft(limit)) return jsonError(400, limit.left)
    return yield* archive.leaderboard({ player: searchParam(request, "player"), limit: limit.right }).pipe(
      Effect.map((leaders) => json(200, { leaders } satisfies LeaderboardJson)),
      Effect.catchAll((error) => Effect.succeed(archiveFailed(error)))
    )
  })

  /** One route per path, answering the methods it takes: any other gets 405 and what it takes. */
  const byMethod = <E, R>(handlers: Readonly<Record<string, Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>>>) => {
    const allow = Object.keys(handlers).join(", ")
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      handlers[request.method] ?? Effect.succeed(jsonError(405, `${request.method} is not taken here: ${allow} only`, { allow })))
  }

  return HttpRouter.empty.pipe(
    HttpRouter.all("/api/games", byMethod({ GET: listGames, POST: newGame(games) })),
    HttpRouter.all("/api/games/:id", byMethod({ GET: oneGame })),
    HttpRouter.all("/api/archive", byMethod({ GET: pastGames })),
    HttpRouter.all("/api/archive/:id/recording", byMethod({ GET: recording })),
    HttpRouter.all("/api/leaderboard", byMethod({ GET: leaderboard })),
    HttpRouter.all(
      "/api/*",
      Effect.sync(() =>
        jsonError(404, "no such route: the API has /api/games, /api/games/ID, /api/archive, /api/archive/ID/recording and /api/leaderboard")
      )
    )
  )
}
