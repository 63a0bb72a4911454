import { Data, Deferred, Effect, Option, Queue } from "effect"
import { deadline } from "./clock.js"

/**
 * What arrives (datagrams, a relay's events), read in order by one reader that awaits each
 * thing it expects with a deadline: "the next one that matches, within T", "all that
 * comes until T, or until enough". Backed by an Effect `Queue`; deadlines are kept by
 * Effect's `Clock`, so a test's `TestClock` drives them, and judged once what came in time
 * has been read (`deadline`). Whoever owns the source puts items in, from a callback if
 * need be (`put`).
 */

/** Nothing that a reader awaited came within its time. */
export class Silence extends Data.TaggedError("Silence")<{
  /** Who was awaited: "the client", "player 3". */
  readonly from: string
  /** What was awaited: "OK", "a PLAY". */
  readonly what: string
  readonly ms: number
  /** What did come meanwhile, described. */
  readonly instead: ReadonlyArray<string>
}> {
  override get message() {
    const instead = this.instead.length === 0 ? "nothing" : this.instead.slice(-3).join(", ")
    return `${this.from}: no ${this.what} within ${this.ms} ms (got ${instead})`
  }
}

export interface Inbox<A> {
  /** Hands an item in (from a callback too); past `capacity` unread items, the oldest is dropped. */
  readonly put: (item: A) => void
  /**
   * No more will come, for the reason given (a closed port): every wait ends at once, a
   * `next` with `Silence` (whose `instead` ends with the reason), a `gather` with what it has.
   */
  readonly end: (reason: string) => void
  /** Whether `end` was called. */
  readonly ended: () => boolean
  /** The first unread item for which `wanted` holds, skipping the unread ones before it; `Silence` after `ms`. */
  readonly next: (what: string, ms: number, wanted?: (item: A) => boolean) => Effect.Effect<A, Silence>
  /** Every unread item that comes within `ms`, or sooner once `enough` holds of them. */
  readonly gather: (ms: number, enough?: (items: ReadonlyArray<A>) => boolean) => Effect.Effect<ReadonlyArray<A>>
  /** Every unread item now, without waiting: they are read. */
  readonly unread: Effect.Effect<ReadonlyArray<A>>
  /** Forgets every unread item, at once (from plain code too). */
  readonly skipAll: () => void
}

export interface InboxOptions<A> {
  /** Who sends what this inbox gets, for a `Silence`: "the client", "player 3". */
  readonly from: string
  /** An item in a few words, for a `Silence`'s `instead`. */
  readonly describe: (item: A) => string
  /** Unread items kept at most (a flood must not fill the memory); unbounded unless given. */
  readonly capacity?: number
}

export const makeInbox = <A>(options: InboxOptions<A>): Effect.Effect<Inbox<A>> =>
  Effect.gen(function*() {
    const queue = options.capacity === undefined ? yield* Queue.unbounded<A>() : yield* Queue.sliding<A>(options.capacity)
    const endedWith = yield* Deferred.make<string>()
    let reason: string | undefined

    /** The next item as soon as there is one, or `undefined` once the inbox has ended and is read. */
    const take: Effect.Effect<A | undefined> = Effect.flatMap(Queue.poll(queue), (polled) =>
      Option.isSome(polled)
        ? Effect.succeed(polled.value)
        : reason !== undefined
        ? Effect.succeed(undefined)
        : Effect.raceFirst(Queue.take(queue), Deferred.await(endedWith).pipe(Effect.as(undefined))))

    const next: Inbox<A>["next"] = (what, ms, wanted = () => true) =>
      Effect.suspend(() => {
        const skipped: Array<string> = []
        const silence = () => new Silence({ from: options.from, what, ms, instead: reason === undefined ? skipped : [...skipped, reason] })
        const loop: Effect.Effect<A, Silence> = Effect.flatMap(take, (item) => {
          if (item === undefined) return Effect.fail(silence())
          if (wanted(item)) return Effect.succeed(item)
          skipped.push(options.describe(item))
          return loop
        })
        return Effect.raceFirst(loop, deadline(ms).pipe(Effect.zipRight(Effect.failSync(silence))))
      })

    // Everything unread is taken at once, then `enough` is asked: a burst is read whole.
    const gather: Inbox<A>["gather"] = (ms, enough = () => false) =>
      Effect.suspend(() => {
        const got: Array<A> = []
        const loop: Effect.Effect<void> = Effect.flatMap(Queue.takeAll(queue), (items) => {
          got.push(...items)
          if (enough(got)) return Effect.void
          return Effect.flatMap(take, (item) => {
            if (item === undefined) return Effect.void
            got.push(item)
            return loop
          })
        })
        return Effect.raceFirst(loop, deadline(ms)).pipe(Effect.as(got as ReadonlyArray<A>))
      })

    return {
      put: (item) => void Queue.unsafeOffer(queue, item),
      end: (why) => {
        reason ??= why
        Deferred.unsafeDone(endedWith, Effect.succeed(why))
      },
      ended: () => reason !== undefined,
      next,
      gather,
      unread: Queue.takeAll(queue).pipe(Effect.map((items) => Array.from(items))),
      // Taking all never waits, so it can run here and now.
      skipAll: () => void Effect.runSync(Queue.takeAll(queue))
    }
  })
