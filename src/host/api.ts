import * as Etag from "@effect/platform/Etag"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpPlatform from "@effect/platform-node/NodeHttpPlatform"
import * as NodePath from "@effect/platform-node/NodePath"
import { Cause, Effect, Layer, Option, type Scope } from "effect"
import * as AST from "effect/SchemaAST"
import type { Archive } from "../archive/archive.js"
import { LobbyApi, openApiDocument } from "../lobby/api.js"
import { apiRoot } from "../lobby/paths.js"
import { BadRequest, type ErrorJson, jsonContentType, NotFound, statusOf } from "../lobby/refusals.js"
import { safeHeaders } from "../web/headers.js"
import { apiHandlers } from "./apiHandlers.js"
import type { Host } from "./host.js"
import type { Admission } from "./admission.js"
import type { OperatorToken } from "./operator.js"
import type { Lobby } from "./lobby.js"

/**
 * The lobby's JSON API, served from its contract (`lobby/api.ts`) with HttpApiBuilder, and
 * answering as it always has: every refusal is JSON, `{"error": "..."}`, with its status,
 * and changes nothing. What HttpApi would answer its own way is answered here: a method a
 * path does not take (405, and what it takes), a path the API does not have (404), and a
 * request it cannot decode (in the contract's words).
 */

/** A refusal that is no endpoint's: of a method, a path, a name the server does not answer to. */
export const jsonError = (status: number, error: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(JSON.stringify({ error } satisfies ErrorJson), {
    status,
    contentType: jsonContentType,
    headers: { ...safeHeaders, ...headers }
  })

/** The methods each of the contract's paths takes, and the names of the path's own parameters. */
const methodsByPath = new Map<HttpRouter.PathInput, Array<string>>()
const pathParameters = new Set<string>()
HttpApi.reflect(LobbyApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => {
    methodsByPath.set(endpoint.path, [...(methodsByPath.get(endpoint.path) ?? []), endpoint.method])
    for (const schema of Option.toArray(endpoint.pathSchema)) {
      for (const parameter of AST.getPropertySignatures(schema.ast)) pathParameters.add(String(parameter.name))
    }
  }
})

/** `a, b and c`. */
const inWords = (items: ReadonlyArray<string>) => items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`

/** The paths its description names, as a person writes them: `/api/games/ID`. */
const noSuchRoute = `no such route: the API has ${inWords(Object.keys(openApiDocument().paths).map((path) => path.replace(/\{\w+\}/g, "ID")))}`

/**
 * A request HttpApi cannot decode, refused in the contract's words (the schemas' own
 * messages): a path that names no game is not found; any other part is a bad request.
 */
const decodeRefusals = HttpApiBuilder.middleware((app) =>
  Effect.catchAllCause(app, (cause) =>
    // Typed as never: HttpApiBuilder turns its errors into answers after its middleware.
    Option.match(Cause.failureOption(cause as Cause.Cause<unknown>), {
      onNone: () => Effect.failCause(cause),
      onSome: (error) => {
        if (!(error instanceof HttpApiDecodeError)) return Effect.failCause(cause)
        const [issue] = error.issues
        const words = { error: issue?.message ?? error.message }
        const refusal = pathParameters.has(String(issue?.path[0])) ? new NotFound(words) : new BadRequest(words)
        return Effect.succeed(jsonError(statusOf(refusal), refusal.error))
      }
    })))

/** What HttpApiBuilder's app asks of the platform, though the API uses none of it (it takes no files). */
const platform = Layer.mergeAll(NodeHttpPlatform.layer, Etag.layerWeak, NodeFileSystem.layer, NodePath.layer)

/** The contract served: its handlers, its decode errors in its words. */
const servedApi = Effect.gen(function*() {
  const api = HttpApiBuilder.api(LobbyApi).pipe(Layer.provide(apiHandlers))
  const context = yield* Layer.build(
    Layer.mergeAll(api, decodeRefusals).pipe(
      Layer.provideMerge(HttpApiBuilder.Router.Live),
      Layer.provideMerge(HttpApiBuilder.Middleware.layer),
      Layer.provideMerge(platform)
    )
  )
  const app = yield* Effect.provide(HttpApiBuilder.httpApp, context)
  return Effect.provide(app, context)
})

/**
 * The query as `URLSearchParams` reads it, each parameter once (its first value), for
 * HttpApi to decode: `?limit=5&limit=x` asks for 5, as it always has.
 */
const firstValues = (request: HttpServerRequest.HttpServerRequest) => {
  const at = request.url.indexOf("?")
  if (at === -1) return request
  const once = new URLSearchParams()
  for (const [name, value] of new URLSearchParams(request.url.slice(at + 1))) if (!once.has(name)) once.set(name, value)
  return request.modify({ url: `${request.url.slice(0, at)}?${once}` })
}

/**
 * The API's routes, under `/api/`: each of the contract's paths, answering the methods it
 * takes (any other gets 405 and what it takes), and a JSON 404 for any other path.
 */
export const apiRoutes: Effect.Effect<HttpRouter.HttpRouter, never, Host | Lobby | Admission | OperatorToken | Archive | Scope.Scope> = Effect.gen(function*() {
  const api = yield* servedApi
  const answered = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    api.pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, firstValues(request)),
      Effect.map((response) => HttpServerResponse.setHeaders(response, safeHeaders))
    ))
  const byPath = [...methodsByPath].reduce(
    (router, [path, methods]) =>
      HttpRouter.all(router, path, Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        if (methods.includes(request.method)) return answered
        const allow = methods.join(", ")
        return Effect.succeed(jsonError(405, `${request.method} is not taken here: ${allow} only`, { allow }))
      })),
    HttpRouter.empty
  )
  return HttpRouter.all(byPath, `${apiRoot}/*`, Effect.sync(() => jsonError(404, noSuchRoute)))
})
