import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { nuggetsCommand, Program, run } from "./cli/process.js"
import { collectAllGold, gridOf, TestClient } from "./server/harness.js"
import { owned } from "./owned.js"

const startServe = async (...args: Array<string>) => {
  const server = Program.start([...(await nuggetsCommand()), "serve", ...args, "--host", "127.0.0.1"])
  owned(server, (server) => server.child.kill("SIGKILL"))
  const ready = await server.line(/^Ready to play, waiting at port \d+$/)
  return { server, port: Number(ready.split(" ").at(-1)) }
}

const open = async (port: number) => {
  const client = await TestClient.open(port)
  owned(client, (client) => client.close())
  return client
}

describe("nuggets serve, as a program", () => {
  it("prints the port, plays a whole game, prints the summary and exits 0; logs only on stderr", async () => {
    const { port, server } = await startServe("maps/small.txt", "11")
    const player = await open(port)
    player.send("PLAY Alice")
    expect(await player.next()).toBe("OK A")
    const watcher = await open(port)
    watcher.send("SPECTATE")
    const ending = await collectAllGold(player, watcher, gridOf(await watcher.nextStarting("DISPLAY")))
    expect(await server.exitCode()).toBe(0)
    expect(server.stdout.filter((line) => line !== "")).toEqual([`Ready to play, waiting at port ${port}`, "A   250 Alice"])
    expect(ending).toBe("GAMEOVER\nA   250 Alice\n")
    expect(server.stderr).toContain("joined as A")
  }, 60_000)

  it("--variant steal: bots play it to the end, the log tells of each theft, and the purses still add up to 250", async () => {
    const { port, server } = await startServe("maps/small.txt", "5", "--variant", "steal")
    const bots = await run([...(await nuggetsCommand()), "bot", "127.0.0.1", String(port), "--count", "8", "--rate", "400", "--seed", "2"])
    expect(bots.code).toBe(0)
    expect(await server.exitCode()).toBe(0)
    const summary = server.stdout.filter((line) => line !== "").slice(1)
    expect(summary).toHaveLength(8)
    expect(summary.reduce((sum, line) => sum + Number(line.split(/ +/)[1]), 0)).toBe(250)
    expect(server.stderr).toContain("steal variant")
    expect(server.stderr).toMatch(/[A-Z] took (1 nugget|\d+ nuggets) from [A-Z]/)
    expect(server.stderr).not.toMatch(/ took 1 nuggets /)
  }, 60_000)

  it("serves a map that breaks the spec's rules, with a warning in the log for each", async () => {
    const { port, server } = await startServe("maps/cramped.txt", "3")
    const bots = await run([...(await nuggetsCommand()), "bot", "127.0.0.1", String(port), "--count", "3", "--rate", "400"])
    expect(bots.code).toBe(0)
    expect(await server.exitCode()).toBe(0)
    expect(server.stderr).toMatch(/WARN maps\/cramped\.txt: the map has 12 room spots/)
    expect(server.stderr).toMatch(/WARN maps\/cramped\.txt: line 4, column 6: passage '#' meets a room at a corner/)
  }, 60_000)

  it("--web: the page's address after the port line, the page itself there, and a bad address refused", async () => {
    const { server } = await startServe("maps/small.txt", "3", "--web", "0")
    const line = await server.line(/^Watch and play in a browser: http:\/\/127\.0\.0\.1:\d+\/$/)
    expect(server.stdout.indexOf(line)).toBe(1)
    const page = await fetch(line.split(": ")[1]!)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("<!doctype html>")
  }, 60_000)

  it("--web answers /livez and /readyz while the game plays; --log-format json writes every log line as a JSON object", async () => {
    const { port, server } = await startServe("maps/small.txt", "11", "--web", "0", "--log-format", "json")
    const page = (await server.line(/^Watch and play in a browser: /)).split(": ")[1]!
    const player = await open(port)
    player.send("PLAY Alice")
    expect(await player.next()).toBe("OK A")
    const live = await fetch(new URL("/livez", page))
    expect([live.status, await live.text()]).toEqual([200, "alive\n"])
    const ready = await fetch(new URL("/readyz", page))
    expect([ready.status, await ready.text()]).toEqual([200, "ready\n"])
    const watcher = await open(port)
    watcher.send("SPECTATE")
    await collectAllGold(player, watcher, gridOf(await watcher.nextStarting("DISPLAY")))
    expect(await server.exitCode()).toBe(0)
    const lines = server.stderr.trimEnd().split("\n").map((line) => JSON.parse(line) as { time: string; level: string; message: string })
    expect(lines.map((line) => line.level)).toContain("info")
    expect(lines.map((line) => line.message)).toContainEqual(expect.stringMatching(/: joined as A \("Alice"\)$/))
    for (const line of lines) expect(new Date(line.time).toISOString()).toBe(line.time)
  }, 60_000)

  it("--log FILE and --log-level debug (in either form), --map and --seed: the log goes to the file, at that level", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "nuggets-serve-")), "server.log")
    owned(dirname(log), (folder) => rmSync(folder, { recursive: true, force: true }))
    const { port, server } = await startServe("--log-level=debug", "--log", log, "--map", "maps/small.txt", "--seed", "11")
    const player = await open(port)
    player.send("PLAY Alice")
    expect(await player.next()).toBe("OK A")
    player.send("KEY z")
    expect(await player.nextStarting("NO")).toBe("NO unknown keystroke")
    server.child.kill("SIGTERM")
    expect(await server.exitCode()).toBe(0)
    expect(server.stderr).toBe("")
    const logged = readFileSync(log, "utf8")
    expect(logged).toMatch(/ DEBUG .*KEY "z" refused: unknown keystroke/)
    expect(logged).toMatch(/ INFO serving a 10x29 map on 127\.0\.0\.1:\d+, seed 11/)
  }, 60_000)

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
  it(`on ${signal} tells every client QUIT server shutting down and exits cleanly`, async () => {
    const { port, server } = await startServe("maps/small.txt", "3")
    const player = await open(port)
    player.send("PLAY Alice")
    await player.nextStarting("DISPLAY")
    const watcher = await open(port)
    watcher.send("SPECTATE")
    await watcher.nextStarting("DISPLAY")
    server.child.kill(signal)
    expect(await player.next()).toBe("QUIT server shutting down")
    expect(await watcher.next()).toBe("QUIT server shutting down")
    expect(await server.exitCode()).toBe(0)
    expect(server.stdout.filter((line) => line !== "")).toEqual([`Ready to play, waiting at port ${port}`])
  }, 60_000)
  }

})
