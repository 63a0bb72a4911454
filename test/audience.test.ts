import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Scope, TestClock } from "effect"
import type { Readable } from "node:stream"
import { makeAudience } from "../src/web/audience.js"
import { heartbeatInterval } from "../src/web/sse.js"

/** One audience: the watchers of a game, of the lobby or of a replay, each a feed with the same limits. */

const encoder = new TextEncoder()
const bytes = (text: string) => encoder.encode(text)

/** The feed a place in the audience streams to its watcher. */
const feedOf = (response: HttpServerResponse.HttpServerResponse): Readable => {
  if (response.body._tag !== "Raw") throw new Error(`not a feed: ${response.status}`)
  return response.body.body as Readable
}

/** What the watcher would read now, as text. */
const readNow = (feed: Readable): string => {
  const chunks: Array<Buffer> = []
  for (let chunk = feed.read(); chunk !== null; chunk = feed.read()) chunks.push(chunk)
  return Buffer.concat(chunks).toString()
}

/** A place taken in a scope of its own, given back by closing it. */
const place = (join: Effect.Effect<HttpServerResponse.HttpServerResponse, never, Scope.Scope>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const response = yield* Scope.extend(join, scope)
    return { response, leave: Scope.close(scope, Exit.void) }
  })

describe("an audience", () => {
  it.scoped("lets in up to its maximum, each feed starting with its first event; past it, 503 before the first is made", () =>
    Effect.gen(function*() {
      const audience = yield* makeAudience({ max: 2 })
      let made = 0
      const first = Effect.sync(() => bytes(`hello ${++made}\n`))
      const one = yield* place(audience.join(first))
      const two = yield* place(audience.join(first))
      const three = yield* place(audience.join(first))
      expect([one.response.status, two.response.status, three.response.status]).toEqual([200, 200, 503])
      expect(three.response.headers["retry-after"]).toBe("30")
      expect(made).toBe(2)
      expect(readNow(feedOf(one.response))).toBe("hello 1\n")
      expect(audience.size()).toBe(2)
      // A place given back is a place for the next.
      yield* one.leave
      expect(audience.size()).toBe(1)
      expect((yield* place(audience.join(first))).response.status).toBe(200)
    }))

  it.scoped("tells every feed, or those it picks; a slow one keeps only the newest", () =>
    Effect.gen(function*() {
      const audience = yield* makeAudience({ max: 10 })
      const [a, b] = [yield* place(audience.join(Effect.succeed(bytes("a\n")))), yield* place(audience.join(Effect.succeed(bytes("b\n"))))]
      const [feedA, feedB] = [feedOf(a.response), feedOf(b.response)]
      readNow(feedA)
      yield* audience.tell(bytes("1\n"))
      yield* audience.tell(bytes("2\n"), (feed) => feed === feedA)
      expect(readNow(feedA)).toBe("1\n2\n")
      // b read nothing yet: its first event, then only the newest of what came since.
      yield* audience.tell(bytes("3\n"), (feed) => feed === feedB)
      expect(readNow(feedB)).toBe("b\n3\n")
    }))

  it.scoped("gives a feed told nothing for a whole beat a heartbeat, and one told something none", () =>
    Effect.gen(function*() {
      const audience = yield* makeAudience({ max: 10 })
      const quiet = feedOf((yield* place(audience.join(Effect.succeed(bytes("q\n"))))).response)
      const busy = feedOf((yield* place(audience.join(Effect.succeed(bytes("b\n"))))).response)
      readNow(quiet)
      readNow(busy)
      // The first beat: both were told their first event in it.
      yield* TestClock.adjust(heartbeatInterval)
      expect([readNow(quiet), readNow(busy)]).toEqual(["", ""])
      yield* audience.tell(bytes("news\n"), (feed) => feed === busy)
      yield* TestClock.adjust(heartbeatInterval)
      expect([readNow(quiet), readNow(busy)]).toEqual([":\n\n", "news\n"])
    }))

  it.scoped("counts its watchers for whoever waits on a number, and ends every feed after its last words", () =>
    Effect.gen(function*() {
      const audience = yield* makeAudience({ max: 10 })
      const waiting = yield* Effect.fork(audience.sizeWhere((count) => count === 2))
      const one = yield* place(audience.join(Effect.succeed(bytes("1\n"))))
      yield* place(audience.join(Effect.succeed(bytes("2\n"))))
      yield* Fiber.join(waiting)
      const feed = feedOf(one.response)
      const ended = Effect.async<void>((resume) => void feed.once("end", () => resume(Effect.void)))
      yield* audience.endAll(bytes("the end\n"))
      expect(readNow(feed)).toBe("1\nthe end\n")
      yield* ended
    }))
})
