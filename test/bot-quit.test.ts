import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Logger, LogLevel, TestClock } from "effect"
import { hear, newBrain } from "../src/bot/brain.js"
import { result, resultLine, runBots } from "../src/bot/bots.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
import { fakeServer } from "./client/fakes.js"

const quiet = Logger.withMinimumLogLevel(process.env.TEST_LOG ? LogLevel.Debug : LogLevel.None)

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
