import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Deferred, Duration, Effect, Option, type Scope, Stream, SubscriptionRef } from "effect"
import { Readable } from "node:stream"
import type { LiveGame } from "../server/liveGame.js"
import { FeedEvent, type LiveHello } from "./feed.js"
import { mapOf, snapshotOf } from "./snapshot.js"
import { refusal } from "./headers.js"
import { eventStream, heartbeat, heartbeatInterval, sseEvent } from "./sse.js"

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

/** How long the end of the feeds may take to reach the pages before the connections are closed anyway. */
const endingGrace = Duration.millis(500)

export const tooManyWatchers = refusal(503, "Too many watchers: try again later.", { "retry-after": "30" })

/** Watchers written to in one go before the UDP game gets its turn: a large audience is fed in slices. */
const sliceSize = 64

/** Lets the event loop handle what has arrived (datagrams first) before going on. */
const letInputIn = Effect.async<void>((resume) => {
  const immediate = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(immediate))
})

/**
 * One watcher's feed: a stream the platform pipes into the watcher's reply (Node's own
 * backpressure, no fiber per watcher), holding at most the newest snapshot the watcher has
 * not taken. While its connection is busy with earlier bytes, a newer snapshot replaces
 * the one waiting: a slow watcher skips snapshots and then gets the newest, so it holds
 * at most one beyond its socket's buffer and costs the game nothing.
 */
export class WatcherFeed extends Readable {
  private waiting: Uint8Array | undefined
  private wanted = false
  private ended = false

  /** `first` goes first whatever comes after: the map and the game as it stands. */
  constructor(first: Uint8Array) {
    super({ highWaterMark: 1 })
    this.push(first)
  }

  get idle(): boolean {
    return this.waiting === undefined
  }

  offer(bytes: Uint8Array): void {
    if (this.destroyed || this.ended) return
    if (this.wanted) this.wanted = this.push(bytes)
    else this.waiting = bytes
  }

  /** The feed ends after what it holds: the reply ends as a stream does. */
  end(): void {
    if (this.destroyed || this.ended) return
    this.ended = true
    if (this.waiting !== undefined) this.push(this.waiting)
    this.waiting = undefined
    this.push(null)
  }

  override _read(): void {
    const waiting = this.waiting
    if (waiting === undefined) return void (this.wanted = true)
    this.waiting = undefined
    this.wanted = this.push(waiting)
  }
}

/**
 * Watchers of a live game, each a feed (see `WatcherFeed`) held in its request's scope.
 * The game only marks the snapshot stale (the host's callback must stay cheap). One fiber
 * encodes a snapshot when there is something new and someone to see it, at most once per
 * `snapshotInterval` (longer for a large audience, see `writesPerSecond`), and hands the
 * same bytes to every feed, in slices between which the game's datagrams are handled.
 */
export const watchLive = (host: LiveGame, options: WatchOptions): Effect.Effect<Watching, never, Scope.Scope> =>
  Effect.gen(function*() {
    const feeds = new Set<WatcherFeed>()
    /** How many watch, for whoever awaits a number (the end of the feeds, tests). */
    const count = yield* SubscriptionRef.make(0)
    const watchersWhere = (wanted: (count: number) => boolean) =>
      count.changes.pipe(Stream.filter(wanted), Stream.take(1), Stream.runDrain)
    const hello = sseEvent(FeedEvent.hello, { mode: "live", ...mapOf(host.state()) } satisfies LiveHello)
    const snapshotNow = (watchers = feeds.size) => sseEvent(FeedEvent.snapshot, snapshotOf(host.state(), watchers))
    const changed = yield* Effect.makeLatch(false)
    /** Done at game over: the last snapshot goes at once, whatever the pace (the server may close soon after). */
    const over = yield* Deferred.make<void>()
    const noteChange = () => {
      if (host.state().over) Deferred.unsafeDone(over, Effect.void)
      if (feeds.size > 0) changed.unsafeOpen()
    }
    yield* Effect.acquireRelease(Effect.sync(() => host.onHandled(noteChange)), (stop) => Effect.sync(stop))

    const handOut = (bytes: Uint8Array, only: (feed: WatcherFeed) => boolean = () => true) =>
      Effect.gen(function*() {
        let handed = 0
        for (const feed of [...feeds]) {
          if (!only(feed)) continue
          feed.offer(bytes)
          if (++handed % sliceSize === 0) yield* letInputIn
        }
      })
    const shortest = Duration.toMillis(options.snapshotInterval)
    const pace = Effect.suspend(() =>
      Effect.sleep(Math.max(shortest, (1000 * feeds.size) / options.writesPerSecond)).pipe(Effect.raceFirst(Deferred.await(over)))
    )
    const publish = Effect.gen(function*() {
      // A quiet feed gets a heartbeat (where nothing waits to be written): see `heartbeatInterval`.
      const woke = yield* changed.await.pipe(Effect.timeout(heartbeatInterval), Effect.option)
      if (Option.isNone(woke)) return yield* handOut(heartbeat, (feed) => feed.idle)
      yield* changed.close
      if (feeds.size === 0) return
      yield* handOut(snapshotNow())
      yield* pace
    })
    yield* Effect.forkScoped(Effect.forever(publish))

    /** A place in the audience for as long as the request lasts. */
    const feed = Effect.acquireRelease(
      Effect.sync(() => {
        // Counting itself: it is watching from now.
        const feed = new WatcherFeed(concat(hello, snapshotNow(feeds.size + 1)))
        feeds.add(feed)
        noteChange()
        return feed
      }).pipe(Effect.tap(() => SubscriptionRef.set(count, feeds.size))),
      (feed) =>
        Effect.sync(() => {
          feeds.delete(feed)
          feed.destroy()
          noteChange()
        }).pipe(Effect.zipRight(Effect.suspend(() => SubscriptionRef.set(count, feeds.size))))
    )
    const route = Effect.gen(function*() {
      if (feeds.size >= options.maxWatchers) return tooManyWatchers
      return eventStream(yield* feed)
    })
    const endAll = Effect.sync(() => {
      // The game as it stands last, then the end: what a watcher saw last is how it ended.
      const last = snapshotNow()
      for (const feed of feeds) {
        feed.offer(last)
        feed.end()
      }
    }).pipe(
      // Run as a finalizer, so uninterruptible unless said: the grace must be able to cut the wait short.
      Effect.zipRight(Effect.interruptible(watchersWhere((left) => left === 0))),
      Effect.timeout(endingGrace),
      Effect.ignore
    )
    return { route, watchers: () => feeds.size, watchersWhere, endAll }
  })

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const both = new Uint8Array(a.length + b.length)
  both.set(a)
  both.set(b, a.length)
  return both
}
