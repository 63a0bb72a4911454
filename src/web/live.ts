import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, type Scope } from "effect"
import type { GameHost } from "../server/host.js"
import type { WebError } from "./error.js"
import { pageRoute } from "./pageRoute.js"
import { defaultPlayerSocketOptions, type PlayerSocketOptions, playRoute } from "./play.js"
import { type Listening, listen, type ListenOptions } from "./server.js"
import { defaultWatchOptions, watchLive, type WatchOptions } from "./watch.js"

export interface WebOptions extends ListenOptions {
  readonly watch?: Partial<WatchOptions>
  readonly play?: Partial<PlayerSocketOptions>
}

export interface LiveWeb extends Listening {
  /** Pages watching now. */
  readonly watchers: () => number
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
    return { ...listening, watchers: watching.watchers }
  })
