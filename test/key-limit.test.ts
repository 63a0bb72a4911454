import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { makeLiveGame, receiveNow } from "../src/server/liveGame.js"
import type { Peer } from "../src/server/peer.js"
import { KeyLimit, keysPerSecond, maxWaitingKeys } from "../src/server/keyLimit.js"
import { TestClient } from "./server/harness.js"
import { owned } from "./owned.js"
import { loadMap } from "./support.js"
import { PageSocket, startWebGame } from "./web/harness.js"

const encoder = new TextEncoder()
const redraw = encoder.encode("KEY \f")

/** A key limit on a clock the test moves by hand. */
const manual = (perSecond: number) => {
  let now = 0
  const booked: Array<{ at: number; run: () => void }> = []
  const limit = new KeyLimit(perSecond, () => now, (ms, run) => void booked.push({ at: now + ms, run }))
  const advance = (ms: number) => {
    now += ms
    for (let next = booked.findIndex((each) => each.at <= now); next !== -1; next = booked.findIndex((each) => each.at <= now)) {
      booked.splice(next, 1)[0]!.run()
    }
  }
  return { limit, advance }
}

describe("the key limit: 60 keys a second per client", () => {
  it("takes a second's worth at once, then lets the next keys wait their turn in order, then drops", () => {
    const { advance, limit } = manual(60)
    const taken: Array<number> = []
    const verdicts = Array.from({ length: 100 }, (_, i) => limit.press("a", () => taken.push(i)))
    expect(verdicts.filter((each) => each === "now")).toHaveLength(60)
    expect(verdicts.filter((each) => each === "later")).toHaveLength(maxWaitingKeys)
    expect(verdicts.filter((each) => each === "dropped")).toHaveLength(100 - 60 - maxWaitingKeys)
    // Another client is not held back by this one.
    expect(limit.press("b", () => {})).toBe("now")
    advance(100)
    expect(taken).toEqual([60, 61, 62, 63, 64, 65])
    advance(1000)
    expect(taken).toEqual(Array.from({ length: maxWaitingKeys }, (_, i) => 60 + i))
    // A new key after the wait is taken at once again: the bucket refilled.
    expect(limit.press("a", () => {})).toBe("now")
  })

  it("with no limit (Infinity), takes every key at once", () => {
    const { limit } = manual(Infinity)
    expect(new Set(Array.from({ length: 1000 }, () => limit.press("a", () => {})))).toEqual(new Set(["now"]))
  })

  it("forgets clients at rest once it tracks many, which changes nothing for them", () => {
    const { advance, limit } = manual(60)
    for (let i = 0; i < 5000; i++) limit.press(`client ${i}`, () => {})
    advance(2000)
    expect(Array.from({ length: 61 }, () => limit.press("client 3", () => {})).filter((each) => each === "now")).toHaveLength(60)
  })

  it.scoped("in the game host: a flooder's keys wait their turn or are dropped, and a person at 20 keys a second is never held back", () =>
    Effect.gen(function*() {
      const host = yield* makeLiveGame({ map: loadMap("main.txt") })
      const received = { flooder: 0, person: 0 }
      const peer = (id: keyof typeof received): Peer => ({
        id,
        keepsBytes: false,
        send: (data) => void (typeof data !== "string" && data[0] === 0x44 && received[id]++)
      })
      const flooder = peer("flooder")
      const person = peer("person")
      yield* receiveNow(host, flooder, encoder.encode("PLAY Flood"))
      yield* receiveNow(host, person, encoder.encode("PLAY Person"))
      received.flooder = received.person = 0
      // 1,000 Ctrl-L in an instant: a second's worth are answered at once, each with a DISPLAY.
      for (let i = 0; i < 1000; i++) yield* receiveNow(host, flooder, redraw)
      expect(received.flooder).toBe(keysPerSecond)
      // The few that wait are answered at their turn; the rest were dropped.
      yield* TestClock.adjust("1 second")
      expect(received.flooder).toBe(keysPerSecond + maxWaitingKeys)
      for (let i = 0; i < 100; i++) {
        yield* TestClock.adjust("50 millis")
        yield* receiveNow(host, person, redraw)
        yield* receiveNow(host, flooder, redraw)
      }
      expect(received.person).toBe(100)
    }))

  it("UDP and WebSocket alike: a burst of 300 keys gets a second's worth of answers at once, a few more at the rate", async () => {
    const game = owned(await startWebGame({ map: loadMap("main.txt"), seed: 3, keysPerSecond }), (game) => game.stop())
    const udp = owned(await TestClient.open(game.port), (client) => client.close())
    const page = owned(await PageSocket.open(game.url), (page) => page.close())
    udp.send("PLAY Udp")
    await udp.nextStarting("DISPLAY")
    page.send("PLAY Page")
    await page.nextStarting("DISPLAY")
    // Keys the game refuses, each answered with a short NO: small answers, none lost on the way back.
    const burst = 300
    for (let i = 0; i < burst; i++) {
      udp.send("KEY z")
      page.send("KEY z")
    }
    const refusals = async (client: { send: (text: string) => void; next: () => Promise<string> }, name: string) => {
      let count = 0
      const until = async (enough: (count: number) => boolean) => {
        while (!enough(count)) if ((await client.next()).startsWith("NO")) count++
      }
      // Those taken at once and those that waited: then a PLAY again, answered with the same
      // OK after all that came before it, shows that no more were taken.
      await until((count) => count >= keysPerSecond + maxWaitingKeys)
      client.send(`PLAY ${name}`)
      for (let message = await client.next(); !message.startsWith("OK"); message = await client.next()) if (message.startsWith("NO")) count++
      return count
    }
    // Real time passes while the burst goes out, and refills a few places: the exact counts
    // are the host test's above, on a test clock. Here, that both ways in are limited alike.
    for (const count of await Promise.all([refusals(udp, "Udp"), refusals(page, "Page")])) {
      expect(count).toBeGreaterThanOrEqual(keysPerSecond + maxWaitingKeys)
      expect(count).toBeLessThan(burst)
    }
  })
})
