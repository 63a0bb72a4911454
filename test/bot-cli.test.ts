import { describe, expect, it } from "@effect/vitest"
import * as dgram from "node:dgram"
import { nuggetsInProcess } from "./cli/in-process.js"
import { nuggetsCommand, run } from "./cli/process.js"
import { resultLine } from "../src/bot/bots.js"
import { freeNames } from "../src/cli/bot.js"
import { call, startHost } from "./host/harness.js"
import { startServer, TestClient } from "./server/harness.js"
import { loadMap } from "./support.js"
import { owned } from "./owned.js"

describe("nuggets bot, as a program", () => {
  it("plays a game to the end, prints one line per bot on stdout and exits 0; logs on stderr", async () => {
    const server = await startServer({ map: loadMap("small.txt"), seed: 4 })
    owned(server, (server) => server.stop())
    const bot = await run([...await nuggetsCommand(), "bot", "127.0.0.1", String(server.port), "--count", "3", "--rate", "1000", "--seed", "9", "--name", "tester"])
    expect(bot.code).toBe(0)
    const lines = bot.stdout.split("\n").filter((line) => line !== "")
    expect(lines.length).toBe(3)
    for (const line of lines) expect(line).toMatch(/^[ABC] +\d+ tester-[123] \(game over\)$/)
    expect(lines.reduce((sum, line) => sum + Number(line.split(/ +/)[1]), 0)).toBe(250)
    expect(bot.stderr).toContain("tester-1: joined as")
  }, 60_000)

  it("--log-format json: every log line a JSON object, stdout as ever", async () => {
    const server = await startServer({ map: loadMap("small.txt"), seed: 4 })
    owned(server, (server) => server.stop())
    const bot = await run([...await nuggetsCommand(), "bot", "127.0.0.1", String(server.port), "--count", "2", "--rate", "1000", "--seed", "9", "--log-format", "json"])
    expect(bot.code).toBe(0)
    expect(bot.stdout.split("\n").filter((line) => line !== "")).toHaveLength(2)
    const lines = bot.stderr.trimEnd().split("\n").map((line) => JSON.parse(line) as { level: string; message: string })
    expect(lines).toContainEqual(expect.objectContaining({ level: "info", message: expect.stringMatching(/^bot-1: joined as [AB]$/) }))
  }, 60_000)

  it("rejects bad arguments, an unknown host, and a port where no server answers, with one line and exit 1", async () => {
    const silent = dgram.createSocket("udp4")
    await new Promise<void>((resolve) => silent.bind(0, "127.0.0.1", resolve))
    owned(silent, (silent) => new Promise<void>((resolve) => silent.close(() => resolve())))
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
      [["bot", "127.0.0.1", "0"], /^nuggets: PORT — must be 1\.\.65535, not 0$/],
      [["bot", "127.0.0.1", "4000", "--count", "0"], /^nuggets: --count — must be 1\.\.100, not 0$/],
      [["bot", "127.0.0.1", "4000", "--rate", "-1"], /^nuggets: --rate — must be 0\.01\.\.1000000, not -1$/],
      [["bot", "127.0.0.1", "4000", "--seed", "x"], /^nuggets: --seed — 'x' is not a whole number$/],
      [["bot", "no-such-host.invalid", "4000"], /^nuggets: no-such-host\.invalid — unknown host$/],
      [["bot", "127.0.0.1", String(silent.address().port), "--timeout", "0.3"], /^nuggets: 127\.0\.0\.1:\d+ — no Nuggets server answered$/],
      [["bot", "127.0.0.1"], /^nuggets: PORT — missing; try 'nuggets help bot'$/],
      [["bot", "http://127.0.0.1:8080", "4000"], /^nuggets: unexpected argument '4000' — a lobby finds the game$/]
    ]
    for (const [args, message] of cases) {
      const result = await nuggetsInProcess(...args)
      expect(result.code, args.join(" ")).toBe(1)
      expect(result.stderr.trim().split("\n").at(-1)).toMatch(message)
      expect(result.stdout).toBe("")
    }
  }, 60_000)

  it("given a lobby's address, plays the game the lobby finds, as join does, under names no one in it has", async () => {
    const host = await startHost({ open: 1 })
    owned(host, (host) => host.stop())
    const [game] = (await call(host.url, "/api/games")).body.games as Array<{ id: string; port: number }>
    // An earlier run's bot, still playing.
    const earlier = owned(await TestClient.open(game!.port), (client) => client.close())
    earlier.send("PLAY bot-1")
    await earlier.nextStarting("DISPLAY")
    const bots = await nuggetsInProcess("bot", host.url, "--count", "2", "--rate", "50", "--deadline", "0.5", "--seed", "3")
    expect(bots.log).toContain(`INFO the lobby found game ${game!.id} on main`)
    expect(bots.stdout.trim().split("\n").map((line) => line.split(/ +/)[2])).toEqual(["bot-2", "bot-3"])
    expect((await call(host.url, `/api/games/${game!.id}`)).body.players.map((each: { name: string }) => each.name)).toEqual(["bot-1", "bot-2", "bot-3"])
  }, 30_000)

  it("a bot's line says how its game ended: over, or stopped with nuggets left", () => {
    const gameOver = { _tag: "GameOver", summary: "A     3 bot-1\n" } as const
    expect(resultLine({ name: "bot-1", letter: "A", purse: 3, outcome: gameOver, remaining: 247 })).toBe("A     3 bot-1 (game stopped)")
    expect(resultLine({ name: "bot-1", letter: "A", purse: 250, outcome: { ...gameOver, summary: "A 250 bot-1\n" }, remaining: 0 }))
      .toBe("A   250 bot-1 (game over)")
  })

  it("takes the next names no one has, letter case ignored", () => {
    expect(freeNames("bot", 3, [])).toEqual(["bot-1", "bot-2", "bot-3"])
    expect(freeNames("bot", 2, ["Bot-1", "bot-3", "Ada"])).toEqual(["bot-2", "bot-4"])
  })
})
