import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, Layer, type Scope } from "effect"
import { LiveGame } from "../server/liveGame.js"
import type { WebError } from "./error.js"
import { pageRoute } from "./pageRoute.js"
import { GameWeb, type GameWebOptions, LiveWeb, type WebOptions } from "./gameWeb.js"
import { listen } from "./listen.js"
import { operationsRoutes } from "./operations.js"
import { defaultPlayerSocketOptions, playerSockets } from "./playerSockets.js"
import { defaultWatchOptions, watchLive } from "./watch.js"

/**
 * The routes of `game`, for as long as the scope lasts. Its end ends every
 * watcher's feed (after the game as it stands) and every player's connection: a game
 * closed while its server goes on (a game of `nuggets host`) keeps no page waiting on it.
 */
export const gameWeb = (game: LiveGame, options: GameWebOptions = {}): Effect.Effect<GameWeb, never, Scope.Scope> =>
  Effect.gen(function*() {
    const watching = yield* watchLive(game, { ...defaultWatchOptions, ...options.watch })
    const players = yield* playerSockets(game, { ...defaultPlayerSocketOptions, ...options.play })
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
export const startWeb = (game: LiveGame, options: WebOptions): Effect.Effect<LiveWeb, WebError, Scope.Scope> =>
  Effect.gen(function*() {
    const web = yield* gameWeb(game, options)
    const router = HttpRouter.empty.pipe(
      HttpRouter.get("/", pageRoute),
      HttpRouter.get("/watch", web.watch),
      HttpRouter.get("/play", web.play)
    )
    // Ready while its game takes players: until it ends.
    const refusing = () => (game.life()._tag === "Playing" ? undefined : "the game has ended")
    const listening = yield* listen(operationsRoutes(router, { refusing }), options)
    // Before the server closes every connection: the feeds end first, as streams do.
    yield* Effect.addFinalizer(() => web.endFeeds)
    return { ...listening, watchers: web.watchers, watchersWhere: web.watchersWhere }
  })

/** The game hosted here on the web (see `startWeb`), for as long as the program runs. */
export const webLayer = (options: WebOptions): Layer.Layer<LiveWeb, WebError, LiveGame> =>
  Layer.scoped(LiveWeb, Effect.flatMap(LiveGame, (game) => startWeb(game, options)))

/** The routes of a game served by another program's web server (`nuggets host`): see `gameWeb`. */
export const gameRoutesLayer = (options: GameWebOptions = {}): Layer.Layer<GameWeb, never, LiveGame> =>
  Layer.scoped(GameWeb, Effect.flatMap(LiveGame, (game) => gameWeb(game, options)))
