import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect, Either, Layer, type Scope } from "effect"
import { Archive } from "../archive/archive.js"
import type { WebError } from "../web/error.js"
import { refusal, safeHeaders } from "../web/headers.js"
import { type Listening, listen, type ListenOptions, type Refuse } from "../web/listen.js"
import { lobbyRoute } from "../lobby/pageRoute.js"
import { apiPaths, apiRoot, lobbyPaths, pathTo } from "../lobby/paths.js"
import { operationsPaths, operationsRoutes } from "../web/operations.js"
import { Admission } from "./admission.js"
import { HostMetrics } from "./metrics.js"
import type { OperatorToken } from "./operator.js"
import { isGameId } from "../lobby/schemas.js"
import { pageRoute } from "../web/pageRoute.js"
import { apiRoutes, jsonError } from "./api.js"
import { Host } from "./host.js"
import { Lobby } from "./lobby.js"
import { lobbyFeed } from "./lobbyFeed.js"
import { replayRoutes } from "./replays.js"

/**
 * The host on the web, one server for everything: the lobby (`/`, `/archive`,
 * `/leaderboard`, and its feed `/events`), each game being played at `/games/ID/` (today's
 * page, its feed and its players' socket beside it), each past game replayed in that page at
 * `/archive/ID/`, and the JSON API (`/api/...`). The same hardening as a game's own page
 * (`listen`): the Host allow-list, one request at a time per connection, and each
 * request's scope ending with its connection.
 */

/** The lobby's refusals: JSON under `/api/`, a line of text elsewhere. */
const refuse: Refuse = (status, text, request) =>
  request.url.startsWith(`${apiRoot}/`) ? jsonError(status, text.replace(/\.$/, "").toLowerCase()) : refusal(status, text)

const redirect = (to: string, status: 302 | 308) => HttpServerResponse.redirect(to, { status, headers: safeHeaders })

const pathOf = (request: HttpServerRequest.HttpServerRequest) => request.url.split("?")[0]!

const gamePage = (id: string) => pathTo(lobbyPaths.game, { id })

/** Every route the host serves, as a pattern of its path (`:id` a game's id): the metrics count requests by these. */
const routes = [
  ...Object.values(lobbyPaths),
  `${lobbyPaths.game}watch`,
  `${lobbyPaths.game}play`,
  `${lobbyPaths.replay}watch`,
  ...Object.values(apiPaths),
  ...Object.values(operationsPaths)
].map((route) => ({ route, pattern: new RegExp(`^${route.replace(/:\w+/g, "[^/]+")}$`) }))

/** The route of a request's path, as the metrics name it; any path of no route is `other`. */
const routeOf = (path: string): string => routes.find(({ pattern }) => pattern.test(path))?.route ?? "other"
const replayPage = (id: string) => pathTo(lobbyPaths.replay, { id })

export const startHostWeb = (options: ListenOptions): Effect.Effect<Listening, WebError, Scope.Scope | Host | Lobby | Archive | Admission | HostMetrics | OperatorToken> =>
  Effect.gen(function*() {
    const games = yield* Host
    const lobby = yield* Lobby
    const archive = yield* Archive
    const { refusing } = yield* Admission
    const feed = yield* lobbyFeed(games, lobby, refusing)
    const replays = yield* replayRoutes(archive)
    const idParam = Effect.map(HttpRouter.params, (params) => params["id"] ?? "")

    /** A live game's page, its feed or its socket; a game that is over goes to its replay. */
    const live = (pick: "page" | "watch" | "play") =>
      Effect.gen(function*() {
        const id = yield* idParam
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!isGameId(id)) return refusal(404, "No such game.")
        const game = games.find(id)
        if (pick === "page" && !pathOf(request).endsWith("/")) return redirect(gamePage(id), 308)
        if (game === undefined) {
          // Another host's game: its page is on its own host.
          const elsewhere = lobby.game(id)?.page
          if (pick === "page" && elsewhere !== undefined && /^https?:/.test(elsewhere)) return redirect(elsewhere, 302)
          if (pick !== "page") return refusal(404, "This game is not being played: it is over, or never was.")
          const past = yield* Effect.either(archive.game(id))
          return Either.isRight(past) ? redirect(replayPage(id), 302) : refusal(404, "No such game.")
        }
        return yield* (pick === "page" ? pageRoute : pick === "watch" ? game.web.watch : game.web.play)
      })

    const replay = Effect.gen(function*() {
      const id = yield* idParam
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!isGameId(id)) return refusal(404, "No such game.")
      if (!pathOf(request).endsWith("/")) return redirect(replayPage(id), 308)
      return yield* pageRoute
    })

    const router = HttpRouter.empty.pipe(
      HttpRouter.get(lobbyPaths.live, lobbyRoute),
      HttpRouter.get(lobbyPaths.archive, lobbyRoute),
      HttpRouter.get(lobbyPaths.leaderboard, lobbyRoute),
      HttpRouter.get(lobbyPaths.feed, feed.route),
      HttpRouter.get(lobbyPaths.game, live("page")),
      HttpRouter.get(`${lobbyPaths.game}watch`, live("watch")),
      HttpRouter.get(`${lobbyPaths.game}play`, live("play")),
      HttpRouter.get(lobbyPaths.replay, replay),
      HttpRouter.get(`${lobbyPaths.replay}watch`, replays.watch),
      HttpRouter.concat(yield* apiRoutes)
    )
    const metrics = yield* HostMetrics
    const withOperations = operationsRoutes(router, { refusing, metrics: metrics.render })
    const listening = yield* listen(withOperations, options, {
      refuse,
      climbing: true,
      answered: (path, status) => metrics.httpRequest(routeOf(path), status)
    })
    // Before the server closes every connection: the lobby's feeds end as streams do.
    yield* Effect.addFinalizer(() => feed.endAll)
    return listening
  })

/** The lobby's web server, when the host runs. */
export class HostWeb extends Context.Tag("nuggets/HostWeb")<HostWeb, Listening>() {}

export const hostWebLayer = (options: ListenOptions): Layer.Layer<HostWeb, WebError, Host | Lobby | Archive | Admission | HostMetrics | OperatorToken> =>
  Layer.scoped(HostWeb, startHostWeb(options))
