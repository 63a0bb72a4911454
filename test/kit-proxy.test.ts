import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock, TestServices } from "effect"
import { type Faults, runProxy } from "../src/kit/proxy/proxy.js"
import type { RelayEvent } from "../src/kit/proxy/relay-events.js"
import { makeTimeline } from "../src/kit/proxy/timeline.js"
import { makeInbox } from "../src/net/inbox.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
import { relayResource } from "./net/relay.js"
import { TestClient } from "./server/harness.js"
import { scriptedServer } from "./kit/scripted.js"

/** The proxy in this process, between a test client and a server played by a script. */

const noFaults: Faults = { loss: 0, duplicate: 0, delay: undefined, reorder: false, seed: 1 }

const DEADLINE = 3000

/** Waits for sockets on the real clock, also in a test whose own clock is the TestClock. */
const live = TestServices.provideLive

const testClient = (port: number) =>
  Effect.acquireRelease(Effect.promise(() => TestClient.open(port)), (client) => Effect.promise(() => client.close()))

const proxyTo = (serverPort: number, faults: Partial<Faults> = {}) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const written = yield* makeInbox<string>({ from: "the proxy", describe: (line) => JSON.stringify(line) })
    const fiber = yield* runProxy(
      { listen: { host: "127.0.0.1", port: 0 }, server: { host: "127.0.0.1", port: serverPort }, faults: { ...noFaults, ...faults }, colour: false },
      (line) => {
        lines.push(line)
        written.put(line)
      }
    ).pipe(Effect.provide(nodeUdpLayer), Effect.scoped, Effect.forkScoped)
    const first = yield* live(written.next("first line", DEADLINE))
    const client = yield* testClient(Number(/port (\d+)/.exec(first)?.[1]))
    /** Lines that mention `text`, once at least `count` of them are there. */
    const until = (text: string, count = 1) =>
      live(written.gather(DEADLINE, () => lines.filter((line) => line.includes(text)).length >= count)).pipe(
        Effect.flatMap(() => {
          const found = lines.filter((line) => line.includes(text))
          return found.length >= count
            ? Effect.succeed(found)
            : Effect.fail(new Error(`no ${count} lines with ${JSON.stringify(text)}; the timeline:\n${lines.join("\n")}`))
        })
      )
    return { client, lines, until, stop: Fiber.interrupt(fiber) }
  })

describe("nuggets proxy's timeline", () => {
  it.scopedLive("decodes each message and flags what breaks the spec, with the spec's line", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer((text, reply) => {
        if (text.startsWith("PLAY")) reply("OK A", "GRID 2 3", "GOLD 0 0 250", "DISPLAY\n..@\n...\n", "DISPLAY\n..@\n..\n", "GOLD 4 9 246", "HELLO there")
      })
      const { client, lines, stop, until } = yield* proxyTo(server.port)
      client.send("PLAY Alice")
      yield* until("HELLO")
      client.send("KEY hh")
      yield* until("KEY")
      yield* stop
      const timeline = lines.join("\n")
      expect(timeline).toMatch(/#1 -> server +PLAY "Alice"/)
      expect(timeline).toMatch(/server -> #1 +OK A/)
      expect(timeline).toMatch(/ {2}DISPLAY 2x3, @ at 0,2\n/)
      expect(timeline).toMatch(/!! DISPLAY \(7 bytes of grid\)\n +!! the DISPLAY grid's rows differ in length \(spec line 390-396: /)
      expect(timeline).toMatch(/!! GOLD n=4 p=9 r=246\n +!! the purse went from 0 to 9, but n=4 \(spec line 402-405: /)
      expect(timeline).toMatch(/!! \?\? "HELLO there"\n +!! unknown message type "HELLO" \(spec line 323-325: /)
      expect(timeline).toMatch(/!! \?\? "KEY hh"\n +!! KEY takes exactly one keystroke/)
      expect(lines.at(-1)).toBe("9 datagrams: 0 lost, 0 duplicated, 0 delayed, 0 reordered; 0 sent again by their sender; 4 flagged")
    }))

  // On the test clock: the relay times each datagram by it.
  it.scoped("a client that goes on after QUIT is flagged; a QUIT it never heard excuses it", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer((text, reply) => {
        if (text === "SPECTATE") reply("QUIT go away")
      })
      const { client, lines, stop, until } = yield* proxyTo(server.port)
      client.send("SPECTATE")
      yield* Effect.promise(() => client.next())
      yield* TestClock.adjust("1500 millis")
      client.send("SPECTATE")
      yield* until(`server -> #1                QUIT "go away"`, 2)
      yield* stop
      expect(lines.join("\n")).toMatch(/!! SPECTATE {2}\(again\)\n +!! the client sent this 1500 ms after it heard the server tell it to quit \(spec line 412-414/)
      expect(lines.filter((line) => line.includes("(again)")), lines.join("\n")).toHaveLength(2)
      // Had the QUIT been lost on the way, the client could not have known.
      const excused: Array<string> = []
      const timeline = makeTimeline((line) => excused.push(line), { colour: false })
      const event = (kind: RelayEvent["kind"], dir: RelayEvent["dir"], text: string, at: number): RelayEvent => ({
        index: 0, kind, dir, client: "127.0.0.1:9", clientNumber: 1, text, bytes: Buffer.from(text), seq: 0, at,
        rule: undefined, copies: undefined, ms: undefined, sent: undefined
      })
      timeline.onEvent(event("forward", "up", "SPECTATE", 0))
      timeline.onEvent(event("drop", "down", "QUIT go away", 1))
      timeline.onEvent(event("forward", "up", "SPECTATE", 500))
      expect(excused.filter((line) => line.includes("!!"))).toEqual([])
      expect(excused.at(-1)).toMatch(/SPECTATE {2}\(again\)$/)
    }))

  it.scopedLive("--loss 1 loses everything; --duplicate 1 sends each twice; --delay holds each back", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer((text, reply) => reply(`echo ${text}`))
      const lossy = yield* proxyTo(server.port, { loss: 1 })
      lossy.client.send("SPECTATE")
      yield* lossy.until("LOST")
      expect(lossy.lines[0]).toMatch(/\(loss 100%, seed 1\)/)
      expect(server.heard).toEqual([])

      const doubled = yield* proxyTo(server.port, { duplicate: 1 })
      doubled.client.send("SPECTATE")
      yield* doubled.until("DUP x2", 2)
      expect(server.heard.map((each) => each.text)).toEqual(["SPECTATE", "SPECTATE"])
      // Each copy is answered, and each answer is doubled again.
      for (let i = 0; i < 4; i++) expect(yield* Effect.promise(() => doubled.client.next())).toBe("echo SPECTATE")

      const slow = yield* proxyTo(server.port, { delay: { min: 30, max: 30 } })
      slow.client.send("KEY h")
      yield* slow.until("(sent now)", 2)
      expect(slow.lines.filter((line) => / \+30ms /.test(line))).toHaveLength(2)
    }))

  it.scopedLive("the same seed gives the same faults to the same traffic", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer(() => undefined)
      const fates = (seed: number) =>
        Effect.gen(function*() {
          const proxy = yield* proxyTo(server.port, { loss: 0.3, duplicate: 0.3, seed })
          for (let i = 0; i < 40; i++) proxy.client.send(`KEY ${"hjkl"[i % 4]}`)
          yield* proxy.until("KEY", 40)
          return proxy.lines.filter((line) => line.includes("KEY")).map((line) => line.slice(10).trim())
        })
      const first = yield* fates(5)
      expect(yield* fates(5)).toEqual(first)
      expect(yield* fates(6)).not.toEqual(first)
      expect(first.filter((line) => line.includes("LOST")).length).toBeGreaterThan(4)
    }))
})

describe("the relay's reordering", () => {
  // On the test clock: a datagram waits for the next one for as long as the relay's clock says.
  it.scoped("each datagram chosen waits for the next one the same way, then follows it", () =>
    Effect.gen(function*() {
      const echo = yield* testClient(0)
      const relay = yield* relayResource({ server: { host: "127.0.0.1", port: echo.local } })
      const client = yield* testClient(relay.port)
      yield* relay.reorder({ dir: "up", when: { nth: [1, 3] } })
      for (const text of ["one", "two", "three", "four", "five"]) client.send(text)
      const got: Array<string> = []
      for (let i = 0; i < 5; i++) got.push(yield* Effect.promise(() => echo.next()))
      expect(got).toEqual(["two", "one", "four", "three", "five"])
      expect((yield* relay.counters).up.reordered).toBe(2)
      // Alone, a held datagram still goes, after its wait.
      yield* relay.reorder({ dir: "up", when: "all", maxWaitMs: 50 })
      client.send("six")
      yield* live(relay.waitFor((event) => event.kind === "reorder" && event.text === "six", DEADLINE))
      yield* TestClock.adjust("49 millis")
      expect(yield* relay.pending).toBe(1)
      yield* TestClock.adjust("1 millis")
      expect(yield* Effect.promise(() => echo.next())).toBe("six")
    }))
})
