import * as HttpRouter from "@effect/platform/HttpRouter"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect, Layer, type Scope } from "effect"
import { GameHost } from "../server/host.js"
import type { WebError } from "./error.js"
import { pageRoute } from "./pageRoute.js"
import { defaultPlayerSocketOptions, type PlayerSocketOptions, playerSockets } from "./playerSockets.js"
import { type Listening, listen, type ListenOptions } from "./listen.js"
import { defaultWatchOptions, watchLive, type WatchOptions } from "./watch.js"

export interface GameWebOptions {
  readonly watch?: Partial<WatchOptions>
  readonly play?: Partial<PlayerSocketOptions>
}

export interface WebOptions extends ListenOptions, GameWebOptions {}

/** A route of one game: answers a request, holding what it takes for as long as the request lasts. */
export type GameRoute = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>

/** One live game on the web, wherever its routes are served: `watch` the watchers' feed, `play` the players' WebSocket. */
export interface GameWeb {
  readonly watch: GameRoute
  readonly play: GameRoute
  /** Pages watching now. */
  readonly watchers: () => number
  /** Succeeds once the number of watchers satisfies `wanted`. */
  readonly watchersWhere: (wanted: (count: number) => boolean) => Effect.Effect<void>
  /** Ends every watcher's feed after the game as it stands (see `Watching.endAll`); the scope's end does it too. */
  readonly endFeeds: Effect.Effect<void>
}

export interface LiveWeb extends Listening, Pick<GameWeb, "watchers" | "watchersWhere"> {}

/**
 * The routes of the game `host` plays, for as long as the scope lasts. Its end ends every
 * watcher's feed (after the game as it stands) and every player's connection: a game
 * closed while its server goes on (a game of `nuggets host`) keeps no page waiting on it.
 */
export const gameWeb = (host: GameHost, options: GameWebOptions = {}): Effect.Effect<GameWeb, never, Scope.Scope> =>
  Effect.gen(function*() {
    const watching = yield* watchLive(host, { ...defaultWatchOptions, ...options.watch })
    const players = yield* playerSockets(host, { ...defaultPlayerSocketOptions, ...options.play })
    // Released first: the feeds end as streams do before the players' connections are cut.
    yield* Effect.addFinalizer(() => watching.endAll)
    return {
      watch: watching.route,
      play: players.route,
      watchers: watching.watchers,
      watchersWhere: watching.watchersWhere,
      endFeeds: watching.endAll
    }
  })

/**
 * The game on the web, beside the UDP server, for as long as the scope lasts: `/` the page,
 * `/watch` the watchers' feed, `/play` the players' WebSocket; nothing else is served.
 */
export const startWeb = (host: GameHost, options: WebOptions): Effect.Effect<LiveWeb, WebError, Scope.Scope> =>
  Effect.gen(function*() {
    const web = yield* gameWeb(host, options)
    const router = HttpRouter.empty.pipe(
      HttpRouter.get("/", pageRoute),
      HttpRouter.get("/watch", web.watch),
      HttpRouter.get("/play", web.play)
    )
    const listening = yield* listen(router, options)
    // Before the server closes every connection: the feeds end first, as streams do.
    yield* Effect.addFinalizer(() => web.endFeeds)
    return { ...listening, watchers: web.watchers, watchersWhere: web.watchersWhere }
  })

/** The game on the web, when this program serves it (`--web`). */
export const LiveWeb = Context.GenericTag<LiveWeb>("nuggets/LiveWeb")

/** The game hosted here on the web (see `startWeb`), for as long as the program runs. */
export const webLayer = (options: WebOptions): Layer.Layer<LiveWeb, WebError, GameHost> =>
  Layer.scoped(LiveWeb, Effect.flatMap(GameHost, (host) => startWeb(host, options)))

/** The routes of a game served by another program's web server (`nuggets host`): see `gameWeb`. */
export const GameWeb = Context.GenericTag<GameWeb>("nuggets/GameWeb")

export const gameRoutesLayer = (options: GameWebOptions = {}): Layer.Layer<GameWeb, never, GameHost> =>
  Layer.scoped(GameWeb, Effect.flatMap(GameHost, (host) => gameWeb(host, options)))
