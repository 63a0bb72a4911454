/**
 * The attacks of one hostile client on a game's web side, each followed by the checks of
 * `stillServing`: run against `nuggets serve --web` (web-hostile.test.ts) and against a
 * game of `nuggets host` under its lobby (host-hostile.test.ts), the same rows for both.
 */
import { describe, expect, it } from "@effect/vitest"
import { hostname, networkInterfaces } from "node:os"
import type { Socket } from "node:net"
import {
  connectTo,
  firstBytes,
  flushed,
  hostOf,
  rawWebSocket,
  readUntil,
  requestText,
  rssMB,
  rssSlackMB,
  type ServedGame,
  statusFor,
  statusOf,
  stillServing
} from "./hostile.js"
import { owned } from "../owned.js"

/** Runs `task` `count` times, `concurrency` at once. */
const repeat = async (count: number, concurrency: number, task: (index: number) => Promise<unknown>) => {
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await task(next++)
  }))
}

const upgrade = { connection: "Upgrade", upgrade: "websocket" }
const fullUpgrade = { ...upgrade, "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" }

/**
 * The rows against one web side: each shows a behaviour, at the smallest scale that shows
 * it. Row 4's replies, were they held, would pass the memory slack twice over; row 5's pages
 * and row 7's watchers are served and forgotten (a fresh page still plays after them, and
 * the memory comes back). The scale figures are `npm run bench`'s: 1,000 watchers in
 * section 5, the 10,000-page soak in 5b.
 */
export const hostileRows = (title: string, start: (webArgs?: ReadonlyArray<string>) => Promise<ServedGame>, pages = 200, watcherCount = 300) =>
  describe(title, () => {
    const served = async (webArgs?: ReadonlyArray<string>): Promise<ServedGame> => {
      const game = await start(webArgs)
      return owned(game, (game) => game.stop())
    }

    const opened = async (url: string): Promise<Socket> => {
      const socket = await connectTo(url)
      return owned(socket, (socket) => socket.destroy())
    }

    it("1. an upgrade request then a TCP reset, on any path, does not end the process", async () => {
      const game = await served()
      for (const path of [game.base, `${game.base}watch`, `${game.base}play`, "/nope", ...game.morePaths]) {
        for (const headers of [upgrade, fullUpgrade]) {
          for (let i = 0; i < 3; i++) {
            const socket = await opened(game.url)
            socket.write(requestText(path, { host: hostOf(game.url), ...headers }))
            // Answered (or closed) first: the reset then meets a socket the server has handled.
            await firstBytes(socket)
            socket.resetAndDestroy()
          }
        }
      }
      await stillServing(game, { startRssMB: game.startRssMB })
    }, 60_000)

    it("2. upgrades to /play that never complete give their connection back", async () => {
      const game = await served()
      const host = hostOf(game.url)
      const play = `${game.base}play`
      // No key, a bad version: refused by the route with a reason.
      const refused = await Promise.all(Array.from({ length: 64 }, (_, i) =>
        statusFor(game.url, play, i % 2 === 0 ? { host, ...upgrade } : { host, ...upgrade, "sec-websocket-version": "99", "sec-websocket-key": "x" })
      ))
      expect(new Set(refused)).toEqual(new Set([400]))
      // What the WebSocket library would refuse (a malformed Sec-WebSocket-Protocol), leaving the upgrade to wait for good.
      const abandoned = await Promise.all(Array.from({ length: 64 }, () =>
        statusFor(game.url, play, { host, ...fullUpgrade, "sec-websocket-protocol": "," })
      ))
      expect(new Set(abandoned)).toEqual(new Set([400]))
      await stillServing(game, { startRssMB: game.startRssMB })
    }, 60_000)

    it("3. pipelined GET /watch (2,100 on one socket, 2 each on 10 sockets) takes no watcher's place, during or after", async () => {
      const game = await served()
      const host = hostOf(game.url)
      const watch = `${game.base}watch`
      const one = await opened(game.url)
      const cut = readUntil(one, /$^/, 5000)
      one.write(requestText(watch, { host }).repeat(2100))
      const ten = await Promise.all(Array.from({ length: 10 }, () => opened(game.url)))
      for (const socket of ten) socket.write(requestText(watch, { host }).repeat(2))
      await Promise.all(ten.map((socket) => firstBytes(socket)))
      // While the pipelining sockets are still open, a page can watch: more than the 2,000 places were asked for.
      expect(await statusFor(game.url, watch, { host })).toBe(200)
      // The server cut the pipelining connection off, after at most the first reply.
      expect((await cut).split("HTTP/1.1 ").length - 1).toBeLessThanOrEqual(1)
      for (const socket of ten) socket.destroy()
      await stillServing(game, { startRssMB: game.startRssMB })
    }, 60_000)

    it("4. pipelined GET / whose replies are never read (10 sockets × 500 requests, twice) costs no memory, during or after", async () => {
      const game = await served()
      for (let round = 0; round < 2; round++) {
        const sockets = await Promise.all(Array.from({ length: 10 }, () => opened(game.url)))
        const burst = requestText(game.base, { host: hostOf(game.url) }).repeat(500)
        const closed = sockets.map((socket) => new Promise<void>((resolve) => socket.once("close", () => resolve())))
        for (const socket of sockets) {
          socket.pause()
          socket.write(burst)
        }
        await Promise.all(sockets.map((socket) => flushed(socket)))
        // Cut off, or at least not holding what they asked for: measured while they are still connected.
        await Promise.race([Promise.all(closed), new Promise((resolve) => setTimeout(resolve, 2000))])
        expect(rssMB(game.pid) - game.startRssMB).toBeLessThan(rssSlackMB)
        for (const socket of sockets) socket.destroy()
      }
      await stillServing(game, { startRssMB: game.startRssMB })
    }, 120_000)

    it(`5. ${pages.toLocaleString("en")} pages that open /play, SPECTATE and close are all forgotten`, async () => {
      const game = await served()
      // Ten at a time: what is measured is what stays once they are gone. With more at once the
      // garbage of those in flight grows V8's heap further, and on a busy machine V8 gives it
      // back only once the machine is idle, after this test's deadline.
      await repeat(pages, 10, async (i) => {
        const { socket, text } = await rawWebSocket(game.url, "SPECTATE", /GRID/)
        expect(text).toMatch(/GRID/)
        // Half leave with a reset, half with an orderly close.
        if (i % 2 === 0) socket.resetAndDestroy()
        else socket.end()
      })
      await stillServing(game, { startRssMB: game.startRssMB })
    }, 180_000)

    it("6. bound to every interface, a page from another site's name (DNS rebinding) is refused; this machine's names pass", async () => {
      const game = await served(["--web", "0.0.0.0:0", "--web-name", "nuggets.example"])
      const { port } = new URL(game.url)
      for (const path of [game.base, `${game.base}watch`, ...game.morePaths]) {
        expect(await statusFor(game.url, path, { host: `rebound.example:${port}` })).toBe(421)
      }
      expect(await statusFor(game.url, `${game.base}play`, { host: `rebound.example:${port}`, ...fullUpgrade })).toBe(421)
      expect(await statusFor(game.url, game.base, { host: `${hostname()}:${port}` })).toBe(200)
      expect(await statusFor(game.url, game.base, { host: `127.0.0.1:${port}` })).toBe(200)
      // A hundred more from that name: the log says a few, not a line for each.
      await Promise.all(Array.from({ length: 100 }, () => statusFor(game.url, game.base, { host: `rebound.example:${port}` })))
      const refusedLines = game.program.stderr.split("\n").filter((line) => line.includes("refused a request for"))
      expect(refusedLines.length).toBeGreaterThan(0)
      expect(refusedLines.length).toBeLessThanOrEqual(5)
      // The name given with --web-name, as a proxy in front would send it.
      expect(await statusFor(game.url, game.base, { host: "nuggets.example" })).toBe(200)
      // A friend on the network is told where to go: every address of this machine on a network.
      const lan = Object.values(networkInterfaces()).flatMap((each) => each ?? []).filter((each) => !each.internal && each.family === "IPv4")
      const told = game.program.stdout.find((line) => line.startsWith("From another machine on this network: "))
      if (lan.length === 0) expect(told).toBeUndefined()
      else expect(told).toBe(`From another machine on this network: ${lan.map((each) => `http://${each.address}:${port}/`).join(" ")}`)
      await stillServing(game, { startRssMB: game.startRssMB })
    }, 60_000)

    it(`7. ${watcherCount} watchers are all served, while UDP players and a fresh page play on`, async () => {
      const game = await served()
      const watchers = await Promise.all(Array.from({ length: watcherCount }, async () => {
        const socket = await opened(game.url)
        const seen = readUntil(socket, /event: snapshot\n/, 20_000)
        socket.write(requestText(`${game.base}watch`, { host: hostOf(game.url) }))
        return { socket, seen }
      }))
      // Each gets its answer, the map and a frame.
      const seen = await Promise.all(watchers.map((watcher) => watcher.seen))
      expect(seen.map(statusOf).filter((status) => status !== 200)).toEqual([])
      expect(seen.filter((text) => !text.includes("event: snapshot\n"))).toEqual([])
      await stillServing(game, { startRssMB: game.startRssMB })
      for (const { socket } of watchers) socket.destroy()
    }, 120_000)
  })
