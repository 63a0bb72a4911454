import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Duration, Effect, type Scope, Stream } from "effect"
import type { GameHost } from "../server/host.js"
import { Audience } from "./audience.js"
import { frameOf, helloOf, sseEvent } from "./frame.js"
import { safeHeaders } from "./server.js"

export interface WatchOptions {
  /** Pages that may watch at once; more are turned away with 503. */
  readonly maxWatchers: number
  /** At most one frame per this long, whatever the pace of the game: watchers cost per second, not per key. */
  readonly frameInterval: Duration.DurationInput
  /**
   * Writes per second to all watchers together, at most: a large audience gets fewer frames
   * (up to 25 watchers: 20 a second; 200: 2.5 a second), so that however many watch, they
   * cost the game no more than this (see `scripts/bench/web.ts`: each write to a TCP
   * socket costs the server tens of µs on loopback).
   */
  readonly writesPerSecond: number
}

export const defaultWatchOptions: WatchOptions = { maxWatchers: 500, frameInterval: Duration.millis(50), writesPerSecond: 500 }

export interface Watching {
  /** The route: a Server-Sent Events stream, the map first, then the latest frame whenever it changes. */
  readonly route: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>
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
 * at most once per `frameInterval` (longer for a large audience, see `writesPerSecond`),
 * and writes it to every watcher (see `Audience`).
 */
export const watchLive = (host: GameHost, options: WatchOptions): Effect.Effect<Watching, never, Scope.Scope> =>
  Effect.gen(function*() {
    const audience = new Audience()
    const hello = sseEvent("hello", helloOf(host.state(), "live"))
    let watchers = 0
    const frameNow = () => {
      const state = host.state()
      return sseEvent("frame", frameOf(state, { watchers, ...(state.over ? { summary: host.summary() } : {}) }))
    }
    let stale = true
    let wake: (() => void) | undefined
    const publish = () => {
      stale = false
      audience.publish(frameNow())
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
    const shortest = Duration.toMillis(options.frameInterval)
    const pace = Effect.suspend(() => Effect.sleep(Math.max(shortest, (1000 * watchers) / options.writesPerSecond)))
    yield* Effect.forkScoped(Effect.forever(somethingToSend.pipe(Effect.zipRight(Effect.sync(publish)), Effect.zipRight(pace))))

    const route = Effect.gen(function*() {
      if (watchers >= options.maxWatchers) return tooManyWatchers
      const request = yield* HttpServerRequest.HttpServerRequest
      // Counted from now until the response ends, however it ends: the request's scope says when.
      watchers++
      yield* Effect.addFinalizer(() => Effect.sync(() => (watchers--, changed())))
      changed()
      // Once the headers are out, the map and the current frame go at once; later frames come from `publish`.
      const join = Effect.sync(() => {
        const first = Buffer.concat([hello, frameNow()])
        audience.join(NodeHttpServerRequest.toServerResponse(request), first)
      })
      return eventStream(Stream.concat(Stream.execute(join), Stream.never))
    })
    return { route, watchers: () => watchers }
  })
