import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Deferred, Duration, Effect, type Scope } from "effect"
import type { LiveGame } from "../server/liveGame.js"
import { type Audience, endingGrace, makeAudience } from "./audience.js"
import { FeedEvent, type LiveHello } from "./feed.js"
import { mapOf, snapshotOf } from "./snapshot.js"
import { sseEvent } from "./sse.js"

export interface WatchOptions {
  /** Pages that may watch at once; more are turned away with 503. */
  readonly maxWatchers: number
  /** At most one snapshot per this long, whatever the pace of the game: watchers cost per second, not per key. */
  readonly snapshotInterval: Duration.DurationInput
  /**
   * Writes per second to all watchers together, at most: a large audience gets fewer
   * snapshots (up to 100 watchers: 20 a second; 1,000: 2 a second), so that however many
   * watch, they cost the game no more than this (see `scripts/bench/web.ts`).
   */
  readonly writesPerSecond: number
}

export const defaultWatchOptions: WatchOptions = { maxWatchers: 2000, snapshotInterval: Duration.millis(50), writesPerSecond: 2000 }

export interface Watching {
  /** The route: a Server-Sent Events stream, the map first, then the latest snapshot whenever it changes. */
  readonly route: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>
  readonly watchers: () => number
  /** Succeeds once the number of watchers satisfies `wanted` (at once, if it already does). */
  readonly watchersWhere: (wanted: (count: number) => boolean) => Effect.Effect<void>
  /**
   * Sends every watcher the game as it stands, ends its feed as a stream ends, and waits a
   * moment for the replies to finish: a page then sees how the game ended, and the feed
   * end, rather than a connection cut mid-reply.
   */
  readonly endAll: Effect.Effect<void>
}

/**
 * Watchers of a live game, an audience (see `audience.ts`). The game's feed only marks the
 * snapshot stale, in the game's own call: a game no one watches costs nothing per key. One fiber encodes a snapshot when there is something new and someone to
 * see it, at most once per `snapshotInterval` (longer for a large audience, see
 * `writesPerSecond`), and hands the same bytes to every feed.
 */
export const watchLive = (game: LiveGame, options: WatchOptions): Effect.Effect<Watching, never, Scope.Scope> =>
  Effect.gen(function*() {
    const changed = yield* Effect.makeLatch(false)
    /** Done at the game's end: the last snapshot goes at once, whatever the pace (the server may close soon after). */
    const over = yield* Deferred.make<void>()
    const noteChange = () => {
      if (audience.size() > 0) changed.unsafeOpen()
    }
    const audience: Audience = yield* makeAudience({ max: options.maxWatchers, changed: noteChange })
    const hello = sseEvent(FeedEvent.hello, { mode: "live", ...mapOf(game.state()) } satisfies LiveHello)
    const snapshotNow = (watchers = audience.size()) => sseEvent(FeedEvent.snapshot, snapshotOf(game.state(), watchers))

    yield* game.follow((event) => {
      if (event._tag === "Ended") Deferred.unsafeDone(over, Effect.void)
      noteChange()
    })

    const shortest = Duration.toMillis(options.snapshotInterval)
    const pace = Effect.suspend(() =>
      Effect.sleep(Math.max(shortest, (1000 * audience.size()) / options.writesPerSecond)).pipe(Effect.raceFirst(Deferred.await(over)))
    )
    const publish = Effect.gen(function*() {
      yield* changed.await
      yield* changed.close
      if (audience.size() === 0) return
      yield* audience.tell(snapshotNow())
      yield* pace
    })
    yield* Effect.forkScoped(Effect.forever(publish))

    // The game as it stands last, then the end: what a watcher saw last is how it ended.
    const endAll = Effect.suspend(() => audience.endAll(snapshotNow())).pipe(
      // Run as a finalizer, so uninterruptible unless said: the grace must be able to cut the wait short.
      Effect.zipRight(Effect.interruptible(audience.sizeWhere((left) => left === 0))),
      Effect.timeout(endingGrace),
      Effect.ignore
    )
    return {
      // Counting itself: it is watching from now.
      route: audience.join(Effect.sync(() => concat(hello, snapshotNow(audience.size() + 1)))),
      watchers: audience.size,
      watchersWhere: audience.sizeWhere,
      endAll
    }
  })

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const both = new Uint8Array(a.length + b.length)
  both.set(a)
  both.set(b, a.length)
  return both
}
