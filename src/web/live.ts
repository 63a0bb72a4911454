import * as HttpRouter from "@effect/platform/HttpRouter"
import { Context, Effect, Layer, type Scope } from "effect"
import { GameHost } from "../server/host.js"
import type { WebError } from "./error.js"
import { pageRoute } from "./pageRoute.js"
import { defaultPlayerSocketOptions, type PlayerSocketOptions, playRoute } from "./playerSockets.js"
import { type Listening, listen, type ListenOptions } from "./listen.js"
import { defaultWatchOptions, watchLive, type WatchOptions } from "./watch.js"

export interface WebOptions extends ListenOptions {
  readonly watch?: Partial<WatchOptions>
  readonly play?: Partial<PlayerSocketOptions>
}

export interface LiveWeb extends Listening {
  /** Pages watching now. */
  readonly watchers: () => number
  /** Succeeds once the number of watchers satisfies `wanted`. */
  readonly watchersWhere: (wanted: (count: number) => boolean) => Effect.Effect<void>
}

/**
 * The game on the web, beside the UDP server, for as long as the scope lasts: `/` the page,
 * `/watch` the watchers' feed, `/play` the players' WebSocket; nothing else is served.
 */
export const startWeb = (host: GameHost, options: WebOptions): Effect.Effect<LiveWeb, WebError, Scope.Scope> =>
  Effect.gen(function*() {
    const watching = yield* watchLive(host, { ...defaultWatchOptions, ...options.watch })
    const router = HttpRouter.empty.pipe(
      HttpRouter.get("/", pageRoute),
      HttpRouter.get("/watch", watching.route),
      HttpRouter.get("/play", playRoute(host, { ...defaultPlayerSocketOptions, ...options.play }))
    )
    const listening = yield* listen(router, options)
    // Before the server closes every connection: the feeds end first, as streams do.
    yield* Effect.addFinalizer(() => watching.endAll)
    return { ...listening, watchers: watching.watchers, watchersWhere: watching.watchersWhere }
  })

/** The game on the web, when this program serves it (`--web`). */
export const LiveWeb = Context.GenericTag<LiveWeb>("nuggets/LiveWeb")

/** The game hosted here on the web (see `startWeb`), for as long as the program runs. */
export const webLayer = (options: WebOptions): Layer.Layer<LiveWeb, WebError, GameHost> =>
  Layer.scoped(LiveWeb, Effect.flatMap(GameHost, (host) => startWeb(host, options)))
