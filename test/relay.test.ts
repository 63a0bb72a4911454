import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option, Scope, TestClock, TestServices } from "effect"
import { makeInbox } from "../src/net/inbox.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
import { Udp } from "../src/net/udp.js"
import { latin1 } from "../src/protocol/transcript.js"
import { type RelayEvent, relayResource, type RelayOptions, type TestRelay } from "./net/relay.js"

const DEADLINE = 2000

/** Waits for sockets on the real clock, in a test whose own clock is the TestClock. */
const live = TestServices.provideLive

/**
 * A plain UDP endpoint on loopback: records what it receives (text and sender port) and, as
 * an echo server, sends each datagram straight back to its sender.
 */
const peer = (echo = false) =>
  Effect.gen(function*() {
    const socket = yield* Effect.flatMap(Udp, (udp) => udp.open({ host: "127.0.0.1" }))
    const received: Array<{ readonly text: string; readonly port: number }> = []
    const inbox = yield* makeInbox<string>({ from: `peer ${socket.local.port}`, describe: (text) => JSON.stringify(text) })
    yield* socket.onDatagram((datagram) => {
      const text = latin1(datagram.data)
      received.push({ text, port: datagram.port })
      inbox.put(text)
      if (echo) socket.sendNow(datagram.data, datagram)
    })
    return {
      port: socket.local.port,
      received,
      texts: () => received.map((datagram) => datagram.text),
      send: (text: string, port: number) => socket.sendNow(text, { address: "127.0.0.1", port }),
      /** The next datagram with exactly `text`, skipping others; `Silence` after the deadline. */
      until: (text: string) => inbox.next(JSON.stringify(text), DEADLINE, (each) => each === text),
      /** The next `count` datagrams, in whatever order they come. */
      gather: (count: number) => inbox.gather(DEADLINE, (items) => items.length >= count)
    }
  }).pipe(Effect.provide(nodeUdpLayer))

/** An echo server, a relay in front of it, and one client talking through the relay. */
const setup = (options: Omit<RelayOptions, "server"> = {}) =>
  Effect.gen(function*() {
    const server = yield* peer(true)
    const relay = yield* relayResource({ ...options, server: { host: "127.0.0.1", port: server.port } })
    const client = yield* peer()
    return { server, relay, client }
  })

const upstreamText = (text: string) => (e: RelayEvent) => e.dir === "up" && e.text === text
const textsOf = (relay: TestRelay, kind: RelayEvent["kind"]) =>
  Effect.map(relay.events, (events) => events.filter((e) => e.kind === kind).map((e) => e.text))

/** Binding succeeds only if nothing holds the port any more. */
const canBind = (port: number) =>
  Effect.scoped(Effect.flatMap(Udp, (udp) => udp.open({ host: "127.0.0.1", port }))).pipe(Effect.provide(nodeUdpLayer))

describe("UDP relay", () => {
  it.scopedLive("forwards both ways, with one upstream socket per client", () =>
    Effect.gen(function*() {
      const { server, relay, client: a } = yield* setup()
      const b = yield* peer()
      a.send("hello from a", relay.port)
      b.send("hello from b", relay.port)
      yield* a.until("hello from a")
      yield* b.until("hello from b")
      a.send("again from a", relay.port)
      yield* a.until("again from a")

      expect(a.texts()).toEqual(["hello from a", "again from a"])
      expect(b.texts()).toEqual(["hello from b"])
      // The server sees only the relay's upstream sockets, each client always through its own.
      const seenBy = (text: string) => server.received.find((d) => d.text === text)?.port
      const [portA, portB] = [seenBy("hello from a"), seenBy("hello from b")]
      expect(portA).not.toBe(portB)
      expect(seenBy("again from a")).toBe(portA)
      expect([portA, portB]).not.toContain(relay.port)
      expect([portA, portB]).not.toContain(a.port)
      const counters = yield* relay.counters
      expect(counters.up).toMatchObject({ seen: 3, forwarded: 3, dropped: 0 })
      expect(counters.down).toMatchObject({ seen: 3, forwarded: 3, dropped: 0 })
      expect(new Set((yield* relay.events).map((e) => e.kind))).toEqual(new Set(["forward"]))
    }))

  it.scopedLive("drops the first 2 PLAY datagrams, and stops when the rule is removed", () =>
    Effect.gen(function*() {
      const { server, relay, client } = yield* setup()
      const plays = yield* relay.drop({ dir: "up", match: "PLAY", when: { first: 2 } })
      for (const text of ["PLAY 1", "PLAY 2", "KEY h", "PLAY 3"]) client.send(text, relay.port)
      yield* client.until("PLAY 3")
      expect(server.texts()).toEqual(["KEY h", "PLAY 3"])
      expect(client.texts()).toEqual(["KEY h", "PLAY 3"])
      expect(yield* textsOf(relay, "drop")).toEqual(["PLAY 1", "PLAY 2"])
      expect(yield* plays.counts).toEqual({ matched: 3, fired: 2 })
      expect((yield* relay.counters).up).toMatchObject({ seen: 4, forwarded: 2, dropped: 2 })

      const keys = yield* relay.drop({ match: /^KEY/ })
      client.send("KEY j", relay.port)
      yield* relay.next((e) => e.kind === "drop" && e.text === "KEY j", DEADLINE)
      yield* keys.remove
      client.send("KEY k", relay.port)
      yield* client.until("KEY k")
      expect(client.texts()).toEqual(["KEY h", "PLAY 3", "KEY k"])
    }))

  it.scopedLive("applies a rule only in its direction", () =>
    Effect.gen(function*() {
      const { server, relay, client } = yield* setup()
      yield* relay.drop({ dir: "down", match: "DISPLAY" })
      client.send("DISPLAY\nx", relay.port)
      client.send("GOLD 1 2 3", relay.port)
      yield* client.until("GOLD 1 2 3")
      expect(server.texts()).toEqual(["DISPLAY\nx", "GOLD 1 2 3"])
      expect(client.texts()).toEqual(["GOLD 1 2 3"])
      expect((yield* relay.counters).down).toMatchObject({ seen: 2, forwarded: 1, dropped: 1 })
    }))

  it.scopedLive("duplicates a datagram", () =>
    Effect.gen(function*() {
      const { server, relay, client } = yield* setup()
      yield* relay.duplicate({ dir: "up", match: "PLAY", when: { first: 1 }, copies: 2 })
      for (const text of ["PLAY a", "PLAY b", "END"]) client.send(text, relay.port)
      yield* client.until("END")
      expect(server.texts()).toEqual(["PLAY a", "PLAY a", "PLAY a", "PLAY b", "END"])
      expect(client.texts()).toEqual(server.texts())
      const counters = yield* relay.counters
      expect(counters.up).toMatchObject({ seen: 3, forwarded: 5, duplicated: 2 })
      expect(counters.down).toMatchObject({ seen: 5, forwarded: 5, duplicated: 0 })
    }))

  it.scoped("delays a datagram so that a later one overtakes it, on the relay's clock", () =>
    Effect.gen(function*() {
      const { server, relay, client } = yield* setup()
      yield* relay.delay({ dir: "up", match: "first", ms: 50 })
      client.send("first", relay.port)
      client.send("second", relay.port)
      yield* live(client.until("second"))
      yield* TestClock.adjust("49 millis")
      expect(server.texts()).toEqual(["second"])
      yield* TestClock.adjust("1 millis")
      yield* live(client.until("first"))
      expect(server.texts()).toEqual(["second", "first"])
      expect(client.texts()).toEqual(["second", "first"])
      const up = (yield* relay.events).filter((e) => e.dir === "up").map((e) => `${e.kind} ${e.text}`)
      expect(up).toEqual(["delay first", "forward second", "release first"])
      expect(yield* relay.pending).toBe(0)
    }))

  it.scopedLive("holds a datagram until released", () =>
    Effect.gen(function*() {
      const { relay, client } = yield* setup()
      const hold = yield* relay.hold({ dir: "down", match: "A" })
      client.send("A", relay.port)
      client.send("B", relay.port)
      yield* client.until("B")
      expect(yield* hold.held).toEqual(["A"])
      expect(yield* relay.pending).toBe(1)
      expect(client.texts()).toEqual(["B"])
      expect(yield* hold.release()).toBe(1)
      yield* client.until("A")
      expect(client.texts()).toEqual(["B", "A"])
      expect((yield* relay.counters).down).toMatchObject({ seen: 2, held: 1, forwarded: 2 })
    }))

  it.scopedLive("rewrites a datagram into several, or answers its sender instead", () =>
    Effect.gen(function*() {
      const { server, relay, client } = yield* setup()
      yield* relay.add({
        dir: "up",
        action: {
          kind: "rewrite",
          into: (text, _info, traffic) =>
            text === "ask" ? [{ back: `answered #${traffic.client} after ${traffic.fromClient}` }] : [text.toUpperCase(), `${text}!`]
        }
      })
      client.send("hi", relay.port)
      client.send("ask", relay.port)
      // The answer comes from the relay itself, the echoes by way of the server: in either order.
      expect([...yield* client.gather(3)].sort()).toEqual(["HI", "answered #1 after 2", "hi!"])
      expect(server.texts()).toEqual(["HI", "hi!"])
      expect((yield* relay.counters).up).toMatchObject({ seen: 2, forwarded: 2 })
    }))

  it.scopedLive("acts on every k-th match of a predicate", () =>
    Effect.gen(function*() {
      const { relay, client } = yield* setup()
      yield* relay.drop({ dir: "up", match: (text, info) => text.startsWith("m") && info.client === `127.0.0.1:${client.port}`, when: { every: 3 } })
      for (let i = 1; i <= 7; i++) client.send(`m${i}`, relay.port)
      yield* relay.waitFor(upstreamText("m7"), DEADLINE)
      expect(yield* textsOf(relay, "drop")).toEqual(["m3", "m6"])
    }))

  describe("probability", () => {
    /** Which of 40 datagrams a relay seeded with `seed` drops with probability 1/2. */
    const dropped = (seed: number) =>
      Effect.scoped(Effect.gen(function*() {
        const { relay, client } = yield* setup({ seed })
        yield* relay.drop({ dir: "up", match: "n", when: { probability: 0.5 } })
        for (let i = 0; i < 40; i++) client.send(`n${i}`, relay.port)
        yield* relay.waitFor(upstreamText("n39"), DEADLINE)
        expect((yield* relay.counters).up.seen).toBe(40)
        return yield* textsOf(relay, "drop")
      }))

    it.scopedLive("drops the same datagrams for the same seed, others for another seed", () =>
      Effect.gen(function*() {
        const first = yield* dropped(7)
        const again = yield* dropped(7)
        const other = yield* dropped(8)
        expect(again).toEqual(first)
        expect(other).not.toEqual(first)
        // Roughly half: the generator is used, not ignored (exact counts are fixed by the seeds).
        for (const drops of [first, other]) expect(drops.length).toBeGreaterThan(10)
        for (const drops of [first, other]) expect(drops.length).toBeLessThan(30)
      }))
  })

  it.scoped("a wait for an event that never comes fails at its deadline, on the clock", () =>
    Effect.gen(function*() {
      const { relay, client } = yield* setup()
      client.send("ping", relay.port)
      // `waitFor` sees the events so far; `next` only what comes after it is called.
      yield* live(relay.waitFor(upstreamText("ping"), DEADLINE))
      const waiting = yield* Effect.fork(relay.next(upstreamText("ping"), 100, "second ping"))
      yield* TestClock.adjust("99 millis")
      expect(yield* Fiber.poll(waiting)).toEqual(Option.none())
      yield* TestClock.adjust("1 millis")
      const exit = yield* Fiber.await(waiting)
      expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toMatchObject({
        _tag: "Silence",
        message: `the relay: no second ping within 100 ms (got forward up "ping", forward down "ping")`
      })
    }))

  it.scopedLive("closing its scope frees every socket, drops what waits and ends every wait", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = yield* peer(true)
      const relay = yield* relayResource({ server: { host: "127.0.0.1", port: server.port } }).pipe(Scope.extend(scope))
      const a = yield* peer()
      const b = yield* peer()
      a.send("hello", relay.port)
      b.send("hello", relay.port)
      yield* a.until("hello")
      yield* b.until("hello")
      yield* relay.delay({ dir: "up", match: "late", ms: 60_000 })
      yield* relay.hold({ dir: "up", match: "kept" })
      a.send("late", relay.port)
      b.send("kept", relay.port)
      yield* relay.waitFor((e) => e.kind === "hold", DEADLINE)
      yield* relay.waitFor((e) => e.kind === "delay", DEADLINE)
      expect(yield* relay.pending).toBe(2)

      const ports = [relay.port, ...new Set(server.received.map((each) => each.port))]
      expect(new Set(ports).size).toBe(3)
      const waiting = yield* Effect.fork(relay.next(() => true, 60_000))
      yield* Scope.close(scope, Exit.void)
      expect(Exit.isInterrupted(yield* Fiber.await(waiting))).toBe(true)
      for (const port of ports) yield* canBind(port)
      expect(server.texts()).toEqual(["hello", "hello"])
    }))
})
