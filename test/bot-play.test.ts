import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger, LogLevel } from "effect"
import * as dgram from "node:dgram"
import { type BotsOptions, resultLine, runBots } from "../src/bot/bots.js"
import type { Took } from "../src/core/life.js"
import type { Dialect } from "../src/protocol/dialect.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
import { startServer } from "./server/harness.js"
import { loadMap } from "./support.js"
import { owned } from "./owned.js"

const serve = async (seed: number, observe?: (handled: Took) => void, dialect: Dialect = "2019") => {
  const server = await startServer({ map: loadMap("small.txt"), seed, dialect, ...(observe ? { observe } : {}) })
  owned(server, (server) => server.stop())
  return server
}

const bots = (options: Partial<BotsOptions> & Pick<BotsOptions, "port">) =>
  Effect.runPromise(
    runBots({ host: "127.0.0.1", count: 1, strategy: "greedy", seed: 1, rate: 2000, ...options }).pipe(
      Logger.withMinimumLogLevel(process.env.TEST_LOG ? LogLevel.Debug : LogLevel.None),
      Effect.provide(nodeUdpLayer)
    )
  )

describe("bots over loopback UDP", () => {
  it("greedy bots play a whole game: all stop at GAMEOVER and their purses add up to 250", async () => {
    const server = await serve(7)
    const results = await bots({ port: server.port, count: 4, seed: 3 })
    expect(results.map((result) => result.outcome._tag)).toEqual(["GameOver", "GameOver", "GameOver", "GameOver"])
    expect(results.map((result) => result.letter).sort()).toEqual(["A", "B", "C", "D"])
    expect(results.reduce((sum, result) => sum + result.purse, 0)).toBe(250)
    // What each bot says it holds is what the server's summary says.
    const { summary } = await server.result
    for (const result of results) {
      expect(summary).toMatch(new RegExp(`^${result.letter} +${result.purse} ${result.name}$`, "m"))
    }
    const over = results[0]!.outcome
    expect(over._tag === "GameOver" && over.summary).toBe(summary)
  }, 30_000)

  it("random bots play too, and a bot past the 26th is refused and says so", async () => {
    const server = await serve(2)
    const results = await bots({ port: server.port, count: 28, strategy: "random", name: (i) => `rnd${i}` })
    const refused = results.filter((result) => result.outcome._tag === "Refused")
    expect(refused.length).toBe(2)
    expect(resultLine(refused[0]!)).toMatch(/^-\s+0 rnd\d+ \(refused: Sorry - the game is full/)
    expect(results.filter((result) => result.outcome._tag === "GameOver").length).toBe(26)
    expect(results.reduce((sum, result) => sum + result.purse, 0)).toBe(250)
  }, 60_000)

  it("in the later CS50 dialect too, the bot past the 26th is refused, not told to quit", async () => {
    const server = await serve(3, undefined, "2021")
    // Greedy: the game need only end, and greedy bots end it soonest.
    const results = await bots({ port: server.port, count: 27, name: (i) => `bot${i}` })
    const refused = results.filter((result) => result.outcome._tag === "Refused")
    expect(refused.map(resultLine)).toEqual([expect.stringMatching(/\(refused: Game is full: no more players can join\.\)$/)])
    expect(results.filter((result) => result.outcome._tag === "GameOver").length).toBe(26)
  }, 60_000)

  it("stops when the server says QUIT", async () => {
    let joined: () => void = () => {}
    const someoneJoined = new Promise<void>((resolve) => (joined = resolve))
    const server = await serve(5, ({ transition }) => transition.changes.joined.length > 0 && joined())
    // A slow bot, so the game is far from over when the server shuts down.
    const playing = bots({ port: server.port, rate: 5 })
    await someoneJoined
    await server.stop()
    const [result] = await playing
    expect(result!.outcome).toEqual({ _tag: "Quit", reason: "server shutting down" })
  }, 30_000)

  it("reports no answer when nothing answers at that port", async () => {
    const silent = dgram.createSocket("udp4")
    await new Promise<void>((resolve) => silent.bind(0, "127.0.0.1", resolve))
    owned(silent, (silent) => new Promise<void>((resolve) => silent.close(() => resolve())))
    const [result] = await bots({ port: silent.address().port, answerTimeout: "200 millis" })
    expect(result!.outcome._tag).toBe("NoAnswer")
    expect(resultLine(result!)).toBe("-     0 bot-1 (no answer from the server)")
  })
})
