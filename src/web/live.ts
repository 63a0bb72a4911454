import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, type Scope } from "effect"
import type { GameHost } from "../server/host.js"
import type { WebAddress } from "./address.js"
import type { WebError } from "./error.js"
import { pageResponse } from "./page.js"
import { defaultPlayOptions, type PlayOptions, playRoute } from "./play.js"
import { type Listening, listen } from "./server.js"
import { defaultWatchOptions, watchLive, type WatchOptions } from "./watch.js"

export interface WebOptions extends WebAddress {
  readonly watch?: Partial<WatchOptions>
  readonly play?: Partial<PlayOptions>
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
      HttpRouter.get("/", Effect.succeed(pageResponse)),
      HttpRouter.get("/watch", watching.route),
      HttpRouter.get("/play", playRoute(host, { ...defaultPlayOptions, ...options.play }))
    )
    const listening = yield* listen(router, options)
    return { ...listening, watchers: watching.watchers }
  })
