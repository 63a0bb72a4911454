import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { KeyLimit, keysPerSecond } from "../src/server/keyLimit.js"
import { makeGameHost, type Peer } from "../src/server/host.js"
import { loadMap } from "./support.js"
import { TestClient } from "./server/harness.js"
import { closeAll, later, PageSocket, startWebGame } from "./web/harness.js"

afterEach(closeAll)

const encoder = new TextEncoder()
const redraw = encoder.encode("KEY \f")

describe("the key limit: 60 keys a second per client", () => {
  it("lets a second's worth through at once, then one key per 1/60 s; each client has its own", () => {
    const limit = new KeyLimit(60)
    const burst = Array.from({ length: 100 }, () => limit.allow("a", 1000)).filter(Boolean).length
    expect(burst).toBe(60)
    expect(limit.allow("b", 1000)).toBe(true)
    expect(limit.allow("a", 1017)).toBe(true)
    expect(limit.allow("a", 1017)).toBe(false)
    // A second of rest fills the bucket again, and no more.
    expect(Array.from({ length: 100 }, () => limit.allow("a", 5000)).filter(Boolean).length).toBe(60)
  })

  it("forgets clients at rest once it tracks many, which changes nothing for them", () => {
    const limit = new KeyLimit(60)
    for (let i = 0; i < 5000; i++) limit.allow(`client ${i}`, 0)
    // All rested by now: every one is allowed a full second's worth again.
    expect(Array.from({ length: 61 }, () => limit.allow("client 3", 2000)).filter(Boolean).length).toBe(60)
  })

  it.scoped("in the game host, keys over the limit are dropped as if lost: a flooder's views stop, a person's do not", () =>
    Effect.gen(function*() {
      const host = yield* makeGameHost({ map: loadMap("main.txt") })
      const received = { flooder: 0, person: 0 }
      const peer = (id: keyof typeof received): Peer => ({
        id,
        keepsBytes: false,
        send: (data) => void (typeof data !== "string" && data[0] === 0x44 && received[id]++)
      })
      const flooder = peer("flooder")
      const person = peer("person")
      host.receive(flooder, encoder.encode("PLAY Flood"))
      host.receive(person, encoder.encode("PLAY Person"))
      received.flooder = received.person = 0
      // 1,000 Ctrl-L in an instant: a second's worth are answered, each with a DISPLAY.
      for (let i = 0; i < 1000; i++) host.receive(flooder, redraw)
      expect(received.flooder).toBe(keysPerSecond)
      // A person at 20 keys a second is never held back, flooder or not.
      for (let i = 0; i < 100; i++) {
        yield* TestClock.adjust("50 millis")
        host.receive(person, redraw)
        host.receive(flooder, redraw)
      }
      expect(received.person).toBe(100)
    }))

  it("UDP and WebSocket alike: a burst of 300 keys gets a second's worth of answers", async () => {
    // Keys the game refuses, each answered with a short NO: small answers, none lost on the way back.
    const game = later(await startWebGame({ map: loadMap("main.txt"), seed: 3, keysPerSecond }), (game) => game.stop())
    const udp = later(await TestClient.open(game.port), (client) => client.close())
    const page = later(await PageSocket.open(game.url), (page) => page.close())
    udp.send("PLAY Udp")
    await udp.nextStarting("DISPLAY")
    page.send("PLAY Page")
    await page.nextStarting("DISPLAY")
    const started = Date.now()
    for (let i = 0; i < 300; i++) {
      udp.send("KEY z")
      page.send("KEY z")
    }
    // A PLAY again is answered with the same OK, after all that came before it: the refusals until then are the burst's.
    udp.send("PLAY Udp")
    page.send("PLAY Page")
    const refusalsUntilOk = async (next: () => Promise<string>) => {
      let refusals = 0
      for (let message = await next(); !message.startsWith("OK"); message = await next()) if (message.startsWith("NO")) refusals++
      return refusals
    }
    const counts = await Promise.all([refusalsUntilOk(() => udp.next()), refusalsUntilOk(() => page.next())])
    const elapsed = (Date.now() - started) / 1000
    for (const refusals of counts) {
      expect(refusals).toBeGreaterThanOrEqual(keysPerSecond)
      expect(refusals).toBeLessThanOrEqual(keysPerSecond * (1 + elapsed) + 1)
    }
  })
})
