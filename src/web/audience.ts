import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Duration, Effect, type Scope, Stream, SubscriptionRef } from "effect"
import { Readable } from "node:stream"
import { refusal } from "./headers.js"
import { eventStream, heartbeat, heartbeatInterval } from "./sse.js"

/**
 * Everyone who watches one thing over Server-Sent Events (a game, the lobby, a replay),
 * each with a feed held in its request's scope: one home for their number, its limit, the
 * first event, the heartbeat of a quiet feed, handing out what is new, and ending them all.
 */
export interface Audience {
  /**
   * A place for as long as the request's scope: a feed that starts with what `first` makes
   * (just before the place is taken: the newcomer is not counted yet), or 503, before
   * `first` runs, beyond the audience's maximum.
   */
  readonly join: <E, R>(
    first: Effect.Effect<Uint8Array, E, R>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | Scope.Scope>
  /** How many watch now. */
  readonly size: () => number
  /** Succeeds once the number watching satisfies `wanted` (at once, if it already does). */
  readonly sizeWhere: (wanted: (count: number) => boolean) => Effect.Effect<void>
  /**
   * Hands `bytes` to every feed (or those `only` picks), in slices between which the
   * program's input is handled: a large audience costs the game a little at a time.
   */
  readonly tell: (bytes: Uint8Array, only?: (feed: WatcherFeed) => boolean) => Effect.Effect<void>
  /** Ends every feed after `last` (if given), as a stream ends; new ones are still let in. */
  readonly endAll: (last?: Uint8Array) => Effect.Effect<void>
}

export interface AudienceOptions {
  /** Watchers at once; more are turned away with 503. */
  readonly max: number
  /** Called when someone joins or leaves, after the count changed. */
  readonly changed?: () => void
}

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
 * backpressure, no fiber per watcher), holding at most the newest bytes the watcher has
 * not taken. While its connection is busy with earlier bytes, newer ones replace those
 * waiting: a slow watcher skips and then gets the newest, so it holds at most one event
 * beyond its socket's buffer and costs what it watches nothing.
 */
export class WatcherFeed extends Readable {
  private waiting: Uint8Array | undefined
  private wanted = false
  private ended = false
  /** Whether anything was offered since the last heartbeat's look. */
  told = true

  /** `first` goes first whatever comes after. */
  constructor(first: Uint8Array) {
    super({ highWaterMark: 1 })
    this.push(first)
  }

  get idle(): boolean {
    return this.waiting === undefined
  }

  offer(bytes: Uint8Array): void {
    if (this.destroyed || this.ended) return
    this.told = true
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

/** An audience for as long as the scope lasts (see `Audience`). */
export const makeAudience = (options: AudienceOptions): Effect.Effect<Audience, never, Scope.Scope> =>
  Effect.gen(function*() {
    const feeds = new Set<WatcherFeed>()
    const count = yield* SubscriptionRef.make(0)
    const sizeWhere = (wanted: (count: number) => boolean) => count.changes.pipe(Stream.filter(wanted), Stream.take(1), Stream.runDrain)

    const tell = (bytes: Uint8Array, only: (feed: WatcherFeed) => boolean = () => true) =>
      Effect.gen(function*() {
        let handed = 0
        for (const feed of [...feeds]) {
          if (!only(feed)) continue
          feed.offer(bytes)
          if (++handed % sliceSize === 0) yield* letInputIn
        }
      })

    // A feed told nothing for a whole beat gets a heartbeat, where nothing waits to be written (see `heartbeatInterval`).
    const beat = Effect.sleep(heartbeatInterval).pipe(
      Effect.zipRight(tell(heartbeat, (feed) => !feed.told && feed.idle)),
      Effect.zipRight(Effect.sync(() => {
        for (const feed of feeds) feed.told = false
      }))
    )
    yield* Effect.forkScoped(Effect.forever(beat))

    const place = (first: Uint8Array) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const feed = new WatcherFeed(first)
          feeds.add(feed)
          options.changed?.()
          return feed
        }).pipe(Effect.tap(() => SubscriptionRef.set(count, feeds.size))),
        (feed) =>
          Effect.sync(() => {
            feeds.delete(feed)
            feed.destroy()
            options.changed?.()
          }).pipe(Effect.zipRight(Effect.suspend(() => SubscriptionRef.set(count, feeds.size))))
      )

    return {
      join: (first) =>
        Effect.suspend(() =>
          feeds.size >= options.max ? Effect.succeed(tooManyWatchers) : first.pipe(Effect.flatMap(place), Effect.map(eventStream))
        ),
      size: () => feeds.size,
      sizeWhere,
      tell,
      endAll: (last) =>
        Effect.sync(() => {
          for (const feed of feeds) {
            if (last !== undefined) feed.offer(last)
            feed.end()
          }
        })
    }
  })

/** How long the end of the feeds may take to reach the pages before the connections are closed anyway. */
export const endingGrace = Duration.millis(500)
