import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Logger, LogLevel, Queue, Scope, Stream, TestClock } from "effect"
import { hear, newBrain } from "../src/bot/brain.js"
import { result, resultLine, runBots } from "../src/bot/bots.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
import { type BoundSocket, type Datagram, Udp, type UdpFailure } from "../src/net/udp.js"
import { fakeServer } from "./client/fakes.js"

const quiet = Logger.withMinimumLogLevel(process.env.TEST_LOG ? LogLevel.Debug : LogLevel.None)

/** The log lines at the default level (info and above), kept for the test to read. */
const keptLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => { if (process.env.TEST_LOG) console.error(String(message)); lines.push(`${logLevel.label} ${String(message)}`) })
  const keep = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(Logger.withMinimumLogLevel(process.env.TEST_LOG ? LogLevel.Debug : LogLevel.Info), Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
  return { lines, keep }
}

describe("a bot that leaves", () => {
  // On the test clock: the deadline, and each repeat of Q, come as the test moves the time on.
  it.scoped("sends Q again until QUIT comes: a lost Q must not leave a ghost", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const bot = yield* Effect.fork(
        runBots({ host: "127.0.0.1", port: server.port, count: 1, strategy: "random", seed: 1, rate: 1, deadline: "2 seconds" })
          .pipe(quiet, Effect.provide(nodeUdpLayer))
      )
      expect(yield* server.receive).toBe("PLAY bot-1")
      yield* server.send("OK A", "GRID 3 5", "GOLD 0 0 250", "DISPLAY\n+---+\n|.@*|\n+---+\n")
      yield* TestClock.adjust("2 seconds")
      expect(yield* server.receiveStarting("KEY Q")).toBe("KEY Q")
      // That Q, and the next, were "lost": the server says nothing.
      yield* TestClock.adjust("300 millis")
      expect(yield* server.receiveStarting("KEY Q")).toBe("KEY Q")
      yield* TestClock.adjust("300 millis")
      expect(yield* server.receiveStarting("KEY Q")).toBe("KEY Q")
      yield* server.send("QUIT Thanks for playing!")
      const [done] = yield* Fiber.join(bot)
      expect(done).toMatchObject({ letter: "A", outcome: { _tag: "Deadline" } })
    }))

  it.scoped("sends PLAY again only while nothing has come back, after 1 s and then 2 s", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const bot = yield* Effect.fork(
        runBots({ host: "127.0.0.1", port: server.port, count: 1, strategy: "random", seed: 1, rate: 1, answerTimeout: "10 seconds" })
          .pipe(quiet, Effect.provide(nodeUdpLayer))
      )
      expect(yield* server.receive).toBe("PLAY bot-1")
      yield* TestClock.adjust("999 millis")
      expect(yield* server.pending).toEqual([])
      yield* TestClock.adjust("1 millis")
      expect(yield* server.receive).toBe("PLAY bot-1")
      yield* TestClock.adjust("1999 millis")
      expect(yield* server.pending).toEqual([])
      yield* TestClock.adjust("1 millis")
      expect(yield* server.receive).toBe("PLAY bot-1")
      // Anything back, even without an OK, ends the retries.
      yield* server.send("GRID 3 5", "GOLD 0 0 250", "DISPLAY\n+---+\n|.@*|\n+---+\n", "GAMEOVER\nA 250 bot-1\n")
      const [done] = yield* Fiber.join(bot)
      expect(done).toMatchObject({ letter: "A", purse: 250, outcome: { _tag: "GameOver" } })
      yield* TestClock.adjust("10 seconds")
      expect((yield* server.pending).filter((each) => each.startsWith("PLAY"))).toEqual([])
    }))
})

describe("a bot's result line", () => {
  it("takes the letter and purse from the summary: the OK, or the last GOLD, may have been lost", () => {
    const noOk = ["GRID 3 5", "GOLD 0 0 250", "GOLD 12 12 238", "QUIT GAME OVER:\nA     250 x\nB       7 bot-2"]
      .reduce(hear, newBrain("greedy"))
    expect(noOk.report).toMatchObject({ letter: undefined, purse: 12 })
    const line = resultLine(result("bot-2", noOk, noOk.report.ending!))
    expect(line).toBe("B     7 bot-2 (game over)")
    // Aadil's summary: name first.
    const nameFirst = ["OK C", "GOLD 0 0 300", "GAMEOVER\nbot-1      A 120  \nbot-3      C 180  \n"].reduce(hear, newBrain("greedy"))
    expect(result("bot-3", nameFirst, nameFirst.report.ending!)).toMatchObject({ letter: "C", purse: 180 })
    // Not in the summary (or no summary): what the bot heard.
    expect(result("bot-9", noOk, { _tag: "Deadline" })).toMatchObject({ letter: undefined, purse: 12 })
  })
})

describe("a bot that cannot play as it should", () => {
  // On the real clock, with a short patience: what is awaited has a deadline.
  it.scopedLive("says why it stopped when every DISPLAY is unreadable: the reason, not that the server stopped answering", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const logs = keptLogs()
      const bot = yield* Effect.fork(
        runBots({ host: "127.0.0.1", port: server.port, count: 1, strategy: "greedy", seed: 1, rate: 20, patience: "300 millis" })
          .pipe(logs.keep, Effect.provide(nodeUdpLayer))
      )
      expect(yield* server.receive).toBe("PLAY bot-1")
      // Rows of different lengths: no grid at all.
      yield* server.send("OK A", "GRID 3 5", "GOLD 0 0 250", "DISPLAY\n+---+\n|@|\n+---+\n")
      const [done] = yield* Fiber.join(bot).pipe(Effect.timeout("5 seconds"))
      const reason = "the DISPLAY grid's rows differ in length"
      expect(done!.outcome).toEqual({ _tag: "Unreadable", reason })
      expect(resultLine(done!)).toBe(`A     0 bot-1 (cannot read the server: ${reason})`)
      expect(logs.lines.filter((line) => line.startsWith("WARN"))).toEqual([expect.stringContaining(reason)])
    }))

  it.scopedLive("presses a key when its view does not show it (gold drawn over it), rather than wait for ever", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const bot = yield* Effect.fork(
        runBots({ host: "127.0.0.1", port: server.port, count: 1, strategy: "greedy", seed: 1, rate: 20 }).pipe(quiet, Effect.provide(nodeUdpLayer))
      )
      expect(yield* server.receive).toBe("PLAY bot-1")
      yield* server.send("OK A", "GRID 3 5", "GOLD 0 0 250", "DISPLAY\n+---+\n|.*.|\n+---+\n")
      expect(yield* server.receiveStarting("KEY ")).toMatch(/^KEY [hjklyubn]$/)
      yield* server.send("QUIT Thanks for playing!")
      expect((yield* Fiber.join(bot).pipe(Effect.timeout("2 seconds")))[0]!.outcome).toEqual({ _tag: "Quit", reason: "Thanks for playing!" })
    }))
})

describe("a bot stopped by a signal", () => {
  // On the real clock: the polite quit must end by itself, and each wait has a deadline.
  /** A bot that has joined, seen its view and pressed a key. */
  const joinedBot = (server: Effect.Effect.Success<typeof fakeServer>) =>
    Effect.gen(function*() {
      const logs = keptLogs()
      const bot = yield* Effect.fork(
        runBots({ host: "127.0.0.1", port: server.port, count: 1, strategy: "greedy", seed: 1, rate: 20 }).pipe(logs.keep, Effect.provide(nodeUdpLayer))
      )
      expect(yield* server.receive).toBe("PLAY bot-1")
      yield* server.send("OK A", "GRID 3 5", "GOLD 0 0 250", "DISPLAY\n+---+\n|.@.|\n+---+\n")
      expect(yield* server.receiveStarting("KEY ")).toMatch(/^KEY [hl]$/)
      return { bot, logs }
    })

  it.scopedLive("leaves politely and is done as soon as QUIT comes", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const { bot, logs } = yield* joinedBot(server)
      const stopping = yield* Effect.fork(Fiber.interrupt(bot))
      expect(yield* server.receiveStarting("KEY Q")).toBe("KEY Q")
      yield* server.send("QUIT Thanks for playing!")
      // Well before the 3 s the polite quit may take at most.
      const exit = yield* Fiber.join(stopping).pipe(Effect.timeout("1 second"))
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(logs.lines).toContainEqual(expect.stringContaining("bot-1: told to quit: Thanks for playing!"))
    }))

  it.scopedLive("whose server's port closes while it says Q: done at once, having said so once", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = yield* fakeServer.pipe(Scope.extend(scope))
      const { bot, logs } = yield* joinedBot(server)
      const stopping = yield* Effect.fork(Fiber.interrupt(bot))
      expect(yield* server.receiveStarting("KEY Q")).toBe("KEY Q")
      yield* Scope.close(scope, Exit.void)
      // Q goes again 300 ms later, to the closed port, and that ends it: well before the 3 s it may take at most.
      yield* Fiber.join(stopping).pipe(Effect.timeout("1 second"))
      expect(logs.lines.filter((line) => line.includes("port is closed"))).toEqual(["WARN bot-1: the server's port is closed"])
    }))
})

describe("a bot whose server exits right after its game over", () => {
  /** A Udp whose one socket the test drives: what arrives, what the system reports, and what was sent. */
  const scriptedUdp = Effect.gen(function*() {
    const incoming = yield* Queue.unbounded<Datagram>()
    const failures = yield* Queue.unbounded<UdpFailure>()
    const sent = yield* Queue.unbounded<string>()
    const text = (data: Uint8Array | string) => typeof data === "string" ? data : new TextDecoder().decode(data)
    const socket: BoundSocket = {
      local: { address: "127.0.0.1", port: 1 },
      incoming: Stream.fromQueue(incoming),
      onDatagram: () => Effect.void,
      failures: Stream.fromQueue(failures),
      send: (data) => Queue.offer(sent, text(data)),
      sendNow: (data) => void Queue.unsafeOffer(sent, text(data)),
      allSent: () => true
    }
    const datagram = (data: string): Datagram => ({ data: new TextEncoder().encode(data), address: "127.0.0.1", port: 2 })
    return {
      layer: Layer.succeed(Udp, { open: () => Effect.succeed(socket) }),
      arrive: (...texts: ReadonlyArray<string>) => Queue.offerAll(incoming, texts.map(datagram)),
      portClosed: Queue.offer(failures, { code: "ECONNREFUSED", message: "connect ECONNREFUSED" }),
      sent: Queue.take(sent)
    }
  })

  it.scoped("reads the GAMEOVER still waiting behind the system's report of the closed port", () =>
    Effect.gen(function*() {
      const udp = yield* scriptedUdp
      const bot = yield* Effect.fork(
        runBots({ host: "127.0.0.1", port: 2, count: 1, strategy: "greedy", seed: 1, rate: 1 }).pipe(quiet, Effect.provide(udp.layer))
      )
      expect(yield* udp.sent).toBe("PLAY bot-1")
      yield* udp.arrive("OK A", "GRID 3 5", "GOLD 0 0 250", "DISPLAY\n+---+\n|.@*|\n+---+\n")
      expect(yield* udp.sent).toMatch(/^KEY /)
      // The key drew an ICMP "port unreachable", reported before the game over queued before it.
      yield* udp.portClosed
      yield* udp.arrive("GAMEOVER\nA 250 bot-1\n")
      const [done] = yield* Fiber.join(bot)
      expect(done).toMatchObject({ letter: "A", purse: 250, outcome: { _tag: "GameOver" } })
    }))
})
