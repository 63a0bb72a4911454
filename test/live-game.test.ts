import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Fiber, Queue, Random, Scope, TestClock } from "effect"
import type { GameEvent } from "../src/core/life.js"
import { rules2019, type Rules } from "../src/core/rules.js"
import { Counts } from "../src/server/counts.js"
import { makeLiveGame, receiveNow } from "../src/server/liveGame.js"
import type { Peer } from "../src/server/peer.js"
import { loadMap } from "./support.js"

/** One game as a service, without a socket: its one way in, its one life, and its one feed. */

const peer = (id: string): Peer & { readonly received: Array<string> } => {
  const received: Array<string> = []
  return { id, keepsBytes: false, received, send: (data) => void received.push(typeof data === "string" ? data : Buffer.from(data).toString("latin1")) }
}

/** `ending`, with the clock moved on until its last words are all out. */
const lastWordsOut = (ending: Effect.Effect<void>) =>
  Effect.fork(ending).pipe(Effect.tap(() => TestClock.adjust("1 second")), Effect.flatMap(Fiber.join))

const tags = (events: Chunk.Chunk<GameEvent>) => Chunk.toArray(events).map((event) => event._tag)

describe("a live game", () => {
  it.scoped("tells its feed each request it took, in order, then its end once, with the state it ended in", () =>
    Effect.gen(function*() {
      const game = yield* makeLiveGame({ map: loadMap("small.txt") })
      const events = yield* game.events
      const alice = peer("alice")
      yield* receiveNow(game, alice, "PLAY Alice")
      yield* receiveNow(game, alice, "KEY l")
      // Refused and malformed messages are not things the game took.
      yield* receiveNow(game, peer("nobody"), "KEY l")
      yield* receiveNow(game, alice, "HELLO")
      const took = yield* Queue.takeAll(events)
      expect(Chunk.toArray(took).map((event) => event._tag === "Took" && event.request)).toEqual([
        { _tag: "Play", name: "Alice" },
        { _tag: "Key", key: "l" }
      ])
      expect(game.life()).toEqual({ _tag: "Playing" })
      // The last words go out three times, a quarter of a second apart, on the test clock.
      yield* lastWordsOut(game.endGame)
      expect(game.life()._tag).toBe("Stopped")
      expect(tags(yield* Queue.takeAll(events))).toEqual(["Ended"])
      // Ended once: what comes later changes nothing.
      yield* lastWordsOut(game.shutDown)
      expect(game.life()._tag).toBe("Stopped")
      expect(yield* Queue.takeAll(events)).toEqual(Chunk.empty())
      const ending = yield* game.ended
      expect(ending._tag === "Stopped" && ending.state.players.map((each) => each.name)).toEqual(["Alice"])
    }).pipe(Effect.withRandom(Random.make(1))))

  it.scoped("ends Failed on a defect when told to: it takes no more messages, and says why on its feed", () =>
    Effect.gen(function*() {
      let explode = false
      const rules: Rules = {
        ...rules2019,
        get variant(): Rules["variant"] {
          if (explode) throw new Error("the test's rule threw")
          return "classic"
        }
      }
      const game = yield* makeLiveGame({ map: loadMap("small.txt"), rules, defects: "end" })
      const events = yield* game.events
      const alice = peer("alice")
      yield* receiveNow(game, alice, "PLAY Alice")
      explode = true
      yield* receiveNow(game, alice, "KEY l")
      expect(game.life()).toMatchObject({ _tag: "Failed", defect: "Error: the test's rule threw" })
      expect(tags(yield* Queue.takeAll(events))).toEqual(["Took", "Ended"])
      explode = false
      const before = alice.received.length
      yield* receiveNow(game, alice, "KEY l")
      expect(alice.received.length).toBe(before)
      // Its owner ends it: everyone is told to quit, and it stays Failed.
      yield* lastWordsOut(game.shutDown)
      expect(alice.received.at(-1)).toMatch(/^QUIT/)
      expect(game.life()._tag).toBe("Failed")
    }).pipe(Effect.withRandom(Random.make(1))))

  it.scoped("a silent game: no one in it for the idle timeout says Deserted on the one idle clock, each step while it stays so", () =>
    Effect.gen(function*() {
      const game = yield* makeLiveGame({ map: loadMap("small.txt"), idleTimeout: "10 seconds" })
      const events = yield* game.events
      const alice = peer("alice")
      yield* receiveNow(game, alice, "PLAY Alice")
      yield* receiveNow(game, alice, "KEY Q")
      yield* Queue.takeAll(events)
      yield* TestClock.adjust("9 seconds")
      expect(tags(yield* Queue.takeAll(events))).toEqual([])
      yield* TestClock.adjust("2 seconds")
      expect(tags(yield* Queue.takeAll(events))).toContain("Deserted")
      // Someone comes: no longer deserted, and the count starts again.
      yield* receiveNow(game, peer("watcher"), "SPECTATE")
      yield* TestClock.adjust("5 seconds")
      expect(tags(yield* Queue.takeAll(events))).toEqual(["Took"])
    }).pipe(Effect.withRandom(Random.make(1))))

  it.effect("closes its feed with its scope: a subscriber's wait ends, and nothing is published after", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const game = yield* makeLiveGame({ map: loadMap("small.txt") }).pipe(Scope.extend(scope), Effect.withRandom(Random.make(1)))
      const subscriber = yield* Effect.scoped(Effect.gen(function*() {
        const events = yield* game.events
        return yield* Effect.forever(Queue.take(events))
      })).pipe(Effect.fork)
      yield* Effect.yieldNow()
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(subscriber)
      expect(Exit.isInterrupted(exit)).toBe(true)
    }))
})

describe("a flood of repeated joins from one address", () => {
  it.scoped("draws back no more bytes than it sends, beyond the answer to its first join; every refusal is counted", () =>
    Effect.gen(function*() {
      const counts = new Counts()
      const game = yield* makeLiveGame({ map: loadMap("small.txt"), counts })
      const mallory = peer("mallory")
      let sentBack = 0
      const counting: Peer = { ...mallory, send: (data) => void (sentBack += typeof data === "string" ? Buffer.byteLength(data) : data.length) }
      yield* receiveNow(game, counting, "PLAY mallory")
      const firstAnswer = sentBack
      expect(firstAnswer).toBeGreaterThan(100)
      let sent = 0
      for (let i = 0; i < 2000; i++) {
        const play = i % 2 === 0 ? "PLAY mallory" : "SPECTATE"
        sent += play.length
        yield* receiveNow(game, counting, play)
      }
      // Beyond the first answer and two repeats of it (for a client that lost it), no more than it sent.
      expect(sentBack - 3 * firstAnswer).toBeLessThanOrEqual(sent)
      expect(counts.refused.limited + counts.refused.refused).toBeGreaterThanOrEqual(2000)
      // A stranger's first PLAY is still answered in full.
      const stranger = peer("stranger")
      yield* receiveNow(game, stranger, "PLAY Stranger")
      expect(stranger.received[0]).toBe("OK B")
    }).pipe(Effect.withRandom(Random.make(1))))
})
