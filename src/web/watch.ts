import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Duration, Effect, type Scope, Stream } from "effect"
import type { GameHost } from "../server/host.js"
import { Latest } from "./broadcast.js"
import { frameOf, helloOf, sseEvent } from "./frame.js"
import { safeHeaders } from "./server.js"

export interface WatchOptions {
  /** Pages that may watch at once; more are turned away with 503. */
  readonly maxWatchers: number
  /** At most one frame per this long, whatever the pace of the game: watchers cost per second, not per key. */
  readonly frameInterval: Duration.DurationInput
}

export const defaultWatchOptions: WatchOptions = { maxWatchers: 500, frameInterval: Duration.millis(50) }

export interface Watching {
  /** The route: a Server-Sent Events stream, the map first, then the latest frame whenever it changes. */
  readonly route: Effect.Effect<HttpServerResponse.HttpServerResponse, never, Scope.Scope>
  readonly watchers: () => number
}

export const eventStream = (body: Stream.Stream<Uint8Array>) =>
  HttpServerResponse.stream(body, { contentType: "text/event-stream", headers: { ...safeHeaders, "x-accel-buffering": "no" } })

export const tooManyWatchers = HttpServerResponse.text("Too many watchers: try again later.\n", {
  status: 503,
  headers: { ...safeHeaders, "retry-after": "30" }
})

/**
 * Watchers of a live game. The game only marks the frame stale (the host's callback must
 * stay cheap); one fiber builds a frame when there is something new and someone to see it,
 * at most once per `frameInterval`, and every watcher takes the newest when ready.
 */
export const watchLive = (host: GameHost, options: WatchOptions): Effect.Effect<Watching, never, Scope.Scope> =>
  Effect.gen(function*() {
    const latest = new Latest<Uint8Array>()
    const hello = sseEvent("hello", helloOf(host.state(), "live"))
    let watchers = 0
    let stale = true
    let wake: (() => void) | undefined
    const publish = () => {
      stale = false
      const state = host.state()
      latest.publish(sseEvent("frame", frameOf(state, { watchers, ...(state.over ? { summary: host.summary() } : {}) })))
    }
    let ended = false
    const changed = () => {
      stale = true
      // The last frame goes at once, whatever the pace: the server may close soon after.
      if (!ended && host.state().over) {
        ended = true
        return publish()
      }
      if (wake !== undefined && watchers > 0) {
        const resume = wake
        wake = undefined
        resume()
      }
    }
    yield* Effect.acquireRelease(Effect.sync(() => host.onHandled(changed)), (stop) => Effect.sync(stop))

    const somethingToSend = Effect.async<void>((resume) => {
      if (stale && watchers > 0) return resume(Effect.void)
      wake = () => resume(Effect.void)
      return Effect.sync(() => (wake = undefined))
    })
    yield* Effect.forkScoped(Effect.forever(somethingToSend.pipe(Effect.zipRight(Effect.sync(publish)), Effect.zipRight(Effect.sleep(options.frameInterval)))))

    const route = Effect.gen(function*() {
      if (watchers >= options.maxWatchers) return tooManyWatchers
      // Counted from now until the response ends, however it ends: the request's scope says when.
      watchers++
      yield* Effect.addFinalizer(() => Effect.sync(() => (watchers--, changed())))
      // The count changed, so a fresh frame is on its way: a late arrival waits for that one, not an old one.
      changed()
      return eventStream(Stream.concat(Stream.succeed(hello), latest.stream(latest.published)))
    })
    return { route, watchers: () => watchers }
  })
