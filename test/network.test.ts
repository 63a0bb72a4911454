import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Logger, LogLevel } from "effect"
import { type BotsOptions, runBots } from "../src/bot/bots.js"
import { joinGame } from "../src/client/session.js"
import type { JoinRequest } from "../src/client/state.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
import { fakeTerminal } from "./client/fakes.js"
import { relayResource } from "./net/relay.js"
import { collectAllGold, gridOf, startServer, TestClient } from "./server/harness.js"
import { loadMap } from "./support.js"

/**
 * The real client and bots against the real server, through a relay that loses, repeats
 * and reorders chosen datagrams. Every wait has a deadline; nothing sleeps.
 */

type Logging = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
const quiet: Logging = Logger.withMinimumLogLevel(process.env.TEST_LOG ? LogLevel.Debug : LogLevel.None)

/** A server in this process, stopped with the test's scope. */
const server = (options: Partial<Parameters<typeof startServer>[0]> = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startServer({ map: loadMap("small.txt"), seed: 5, ...options })),
    (running) => Effect.promise(() => running.stop())
  )

/**
 * What the client says it sends, in order, as it sends it (its debug log's `sent ...`): a
 * relay sees a datagram only once it has had the CPU, later on a busy machine.
 */
const sentLog = () => {
  const sent: Array<string> = []
  const logger = Logger.make(({ message }) => {
    const text = Array.isArray(message) ? message.join(" ") : String(message)
    if (text.startsWith("sent ")) sent.push(JSON.parse(text.slice("sent ".length)) as string)
  })
  const logging: Logging = (effect) => effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Logger.withMinimumLogLevel(LogLevel.Debug))
  return { sent, logging }
}

/** `joinGame` through the relay, on a terminal that records its frames. */
const client = (relayPort: number, request: JoinRequest, logging: Logging = quiet) =>
  Effect.gen(function*() {
    const terminal = yield* fakeTerminal({ columns: 80, rows: 24 })
    const fiber = yield* Effect.fork(joinGame({ host: "127.0.0.1", port: relayPort, request }, terminal.layer).pipe(logging, Effect.provide(nodeUdpLayer)))
    return { fiber, terminal }
  })

const alice: JoinRequest = { _tag: "Player", name: "Alice" }
const statusOf = (lines: ReadonlyArray<string>) => (lines[0] ?? "").trimEnd()

describe.concurrent("joining through a relay that loses datagrams", () => {
  it.scopedLive("the first PLAY lost: PLAY goes out again after a second, and the game shows", () =>
    Effect.gen(function*() {
      const { port } = yield* server()
      const relay = yield* relayResource({ server: { host: "127.0.0.1", port } })
      yield* relay.drop({ dir: "up", match: "PLAY", when: { first: 1 } })
      const { fiber, terminal } = yield* client(relay.port, alice)
      yield* terminal.frameWhere((lines) =>
        statusOf(lines).startsWith("Player A has 0 nuggets (250") && lines.some((line) => line.includes("@"))
      )
      expect((yield* relay.events).filter((event) => event.dir === "up" && event.text.startsWith("PLAY")).map((e) => e.kind))
        .toEqual(["drop", "forward"])
      yield* Fiber.interrupt(fiber)
    }))

  it.scopedLive("OK and GOLD lost until the user's Ctrl-L: no PLAY again once the view is drawn, the status line blank until known, and the Ctrl-L makes it whole", () =>
    Effect.gen(function*() {
      const { port } = yield* server()
      const relay = yield* relayResource({ server: { host: "127.0.0.1", port } })
      // Every OK and GOLD is lost until the user's Ctrl-L, however often the client sends PLAY
      // (again a second on, if the machine is so busy that no answer came by then).
      let askedYet = false
      // Drops nothing: it notes the client's first Ctrl-L.
      yield* relay.drop({ dir: "up", match: (text) => (askedYet ||= text === "KEY \f") && false })
      yield* relay.drop({ dir: "down", match: (text) => !askedYet && /^(OK|GOLD) /.test(text) })
      const log = sentLog()
      const { fiber, terminal } = yield* client(relay.port, alice, log.logging)
      // The view is played as it came; what the status line would say is not known yet.
      yield* terminal.frameWhere((lines) => lines.some((line) => line.includes("@")) && statusOf(lines) === "")
      // Once it has drawn the view, the client knows it is in: no PLAY again from then on.
      const shown = log.sent.length
      yield* terminal.press("\f")
      yield* terminal.frameWhere((lines) => statusOf(lines) === "Player A has 0 nuggets (250 nuggets unclaimed).")
      expect(log.sent.slice(shown).filter((text) => text.startsWith("PLAY"))).toEqual([])
      const events = yield* relay.events
      expect(events.filter((event) => event.dir === "up" && event.text.startsWith("KEY")).map((event) => event.text)).toEqual(["KEY \f"])
      yield* Fiber.interrupt(fiber)
    }))
})

describe.concurrent("playing through a relay that loses datagrams", () => {
  /** Where `@` is on a frame, and a room spot beside it with the key that steps there. */
  const besideMe = (lines: ReadonlyArray<string>) => {
    const row = lines.findIndex((line) => line.includes("@"))
    const col = lines[row]!.indexOf("@")
    const [key, dRow, dCol] = ([["h", 0, -1], ["l", 0, 1], ["k", -1, 0], ["j", 1, 0]] as const).find(([, r, c]) => lines[row + r]?.[col + c] === ".")!
    return { row, col, key, to: { row: row + dRow, col: col + dCol } }
  }
  /** The keys the client sent up, in order. */
  const keysSent = (relay: Effect.Effect.Success<ReturnType<typeof relayResource>>) =>
    relay.events.pipe(Effect.map((events) => events.filter((event) => event.dir === "up" && event.text.startsWith("KEY")).map((event) => event.text)))

  it.scopedLive("the DISPLAY after a move lost: the client asks for nothing, and the user's next key shows the move", () =>
    Effect.gen(function*() {
      const { port } = yield* server({ map: loadMap("main.txt") })
      const relay = yield* relayResource({ server: { host: "127.0.0.1", port } })
      const { fiber, terminal } = yield* client(relay.port, alice)
      const me = besideMe(yield* terminal.frameWhere((lines) => lines.some((line) => line.includes("@"))))
      // The DISPLAY a key brought, not one of the server's answer to a PLAY the client sent
      // again (a busy machine's first answer may take over a second), which comes after its OK.
      let keyed = false
      let joinAnswer = false
      yield* relay.drop({ dir: "up", match: (text) => (keyed ||= text.startsWith("KEY ")) && false })
      const dropped = yield* relay.drop({
        dir: "down",
        match: (text) => {
          if (/^(OK|GRID) /.test(text)) joinAnswer = true
          if (!text.startsWith("DISPLAY")) return false
          const ofJoin = joinAnswer
          joinAnswer = false
          return keyed && !ofJoin
        },
        when: { first: 1 }
      })
      yield* terminal.press(me.key)
      yield* relay.waitFor((event) => event.kind === "drop", 3000, "the DISPLAY dropped")
      // Our server answers every move key with a DISPLAY, one into a wall too: the next key brings the view.
      yield* terminal.press(me.key)
      yield* terminal.frameWhere((lines) => lines[me.row]?.[me.col] !== "@" && lines.some((line) => line.includes("@")))
      expect((yield* dropped.counts).fired).toBe(1)
      expect(yield* keysSent(relay)).toEqual([`KEY ${me.key}`, `KEY ${me.key}`])
      yield* Fiber.interrupt(fiber)
    }))

  it.scopedLive("the DISPLAY after a move lost: the client asks for nothing, and the next change in its sight (a player arriving) shows the move", () =>
    Effect.gen(function*() {
      const running = yield* server()
      const relay = yield* relayResource({ server: { host: "127.0.0.1", port: running.port } })
      const { fiber, terminal } = yield* client(relay.port, alice)
      const me = besideMe(yield* terminal.frameWhere((lines) => lines.some((line) => line.includes("@"))))
      yield* relay.drop({ dir: "down", match: "DISPLAY", when: { first: 1 } })
      yield* terminal.press(me.key)
      yield* relay.waitFor((event) => event.kind === "drop", 3000, "the DISPLAY dropped")
      // Bob joins in Alice's sight (the map's rooms are small, and the seed drops him there): her view changes, and comes whole.
      const bob = yield* Effect.acquireRelease(Effect.promise(() => TestClient.open(running.port)), (c) => Effect.promise(() => c.close()))
      bob.send("PLAY Bob")
      yield* terminal.frameWhere((lines) => lines[me.to.row]?.[me.to.col] === "@" && lines.some((line) => line.includes("B")))
      expect(yield* keysSent(relay)).toEqual([`KEY ${me.key}`])
      yield* Fiber.interrupt(fiber)
    }))

  it.scopedLive("every GAMEOVER lost: the user's next key is answered with it by the server, still there", () =>
    Effect.gen(function*() {
      const running = yield* server({ linger: "3 seconds" })
      const open = Effect.acquireRelease(Effect.promise(() => TestClient.open(running.port)), (c) => Effect.promise(() => c.close()))
      // Alice and a watcher of the test's own play the game to its end, straight to the server.
      const alice = yield* open
      alice.send("PLAY Alice")
      yield* Effect.promise(() => alice.nextStarting("DISPLAY"))
      const relay = yield* relayResource({ server: { host: "127.0.0.1", port: running.port } })
      yield* relay.drop({ dir: "down", match: "GAMEOVER", when: { first: 3 } })
      const bob = yield* client(relay.port, { _tag: "Player", name: "Bob" })
      yield* bob.terminal.frameWhere((lines) => statusOf(lines).startsWith("Player B"))
      const watcher = yield* open
      watcher.send("SPECTATE")
      const view = gridOf(yield* Effect.promise(() => watcher.nextStarting("DISPLAY")))
      yield* Effect.promise(() => collectAllGold(alice, watcher, view))
      // Bob sees no nuggets left, and nothing more: it asks for nothing of its own accord.
      yield* bob.terminal.frameWhere((lines) => statusOf(lines).includes("(0 nuggets unclaimed)"))
      yield* bob.terminal.press("x")
      expect(yield* Fiber.join(bob.fiber)).toMatchObject({ _tag: "GameOver" })
      expect((yield* relay.events).filter((event) => event.dir === "down" && event.text.startsWith("GAMEOVER")).map((e) => e.kind))
        .toEqual(["drop", "drop", "drop", "forward"])
    }), 30_000)
})

describe.concurrent("bots on a bad network", () => {
  it.scopedLive("26 bots join and quit through a relay that loses 20% both ways: every Q is acknowledged, no ghost stays, the game ends", () =>
    Effect.gen(function*() {
      const running = yield* server({ map: loadMap("main.txt"), linger: "1 second" })
      const relay = yield* relayResource({ server: { host: "127.0.0.1", port: running.port }, seed: 11 })
      yield* relay.drop({ when: { probability: 0.2 } })
      const options: BotsOptions = {
        host: "127.0.0.1",
        port: relay.port,
        count: 26,
        strategy: "random",
        seed: 5,
        rate: 4,
        deadline: "1 second",
        answerTimeout: "20 seconds"
      }
      const results = yield* runBots(options).pipe(quiet, Effect.provide(nodeUdpLayer))
      expect(results.filter((result) => result.outcome._tag === "NoAnswer")).toEqual([])
      // With every letter used and every player gone, the game ends (no idle timeout here).
      const { summary } = yield* Effect.promise(() => running.result)
      expect(summary.trim().split("\n")).toHaveLength(26)
      const events = yield* relay.events
      const quits = events.filter((event) => event.dir === "up" && event.text === "KEY Q")
      expect(quits.some((event) => event.kind === "drop")).toBe(true)
      expect(events.some((event) => event.dir === "down" && event.text.startsWith("QUIT") && event.kind === "drop")).toBe(true)
    }), 60_000)


  it.scopedLive("20% loss, duplicates and reordering both ways: the game still ends, every bot sees its end", () =>
    Effect.gen(function*() {
      // The big map: every bot is in long before the gold is all taken.
      const running = yield* server({ map: loadMap("main.txt"), lastWordsSpacing: "250 millis", linger: "2 seconds" })
      const relay = yield* relayResource({ server: { host: "127.0.0.1", port: running.port }, seed: 7 })
      yield* relay.drop({ when: { probability: 0.2 } })
      yield* relay.duplicate({ dir: "down", when: { probability: 0.05 } })
      yield* relay.delay({ dir: "down", match: "DISPLAY", when: { probability: 0.05 }, ms: 30 })
      // PLAY goes out after 0, 1, 3, 7, 11 s and every 4 s after while nothing comes back: nine
      // tries at 20% loss each way (five left one bot in 200 unanswered).
      const options: BotsOptions = {
        host: "127.0.0.1",
        port: relay.port,
        count: 3,
        strategy: "greedy",
        seed: 4,
        rate: 100,
        answerTimeout: "30 seconds"
      }
      const results = yield* runBots(options).pipe(quiet, Effect.provide(nodeUdpLayer))
      expect(results.map((result) => result.outcome._tag)).toEqual(["GameOver", "GameOver", "GameOver"])
      const { summary } = yield* Effect.promise(() => running.result)
      expect(summary.trim().split("\n").reduce((sum, line) => sum + Number(line.split(/ +/)[1]), 0)).toBe(250)
      const counters = yield* relay.counters
      expect(counters.up.dropped + counters.down.dropped).toBeGreaterThan(10)
    }), 60_000)
})
