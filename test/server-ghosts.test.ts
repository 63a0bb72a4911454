import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Logger, LogLevel, Queue, Random, TestClock } from "effect"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { lineLogger } from "../src/log.js"
import { makeLiveGame, receiveNow } from "../src/server/liveGame.js"
import type { Peer } from "../src/server/peer.js"
import { ownedClient as client, ownedServer, startServer, TestClient } from "./server/harness.js"
import { loadMap } from "./support.js"

/** No ghosts: last words that stop when untrue, quitting acknowledged, silent players dropped, and a log no flood can fill. */

const serve = (options: Partial<Parameters<typeof startServer>[0]> = {}) => ownedServer({ map: loadMap("small.txt"), seed: 3, ...options })
const spectate = async (c: TestClient) => {
  c.send("SPECTATE")
  await c.nextStarting("DISPLAY")
}

describe("last words", () => {
  it("a replaced spectator that spectates again within the repeat window keeps its seat and gets no more QUIT", async () => {
    const { port } = await serve({ lastWordsSpacing: "100 millis" })
    const first = await client(port)
    const second = await client(port)
    await spectate(first)
    await spectate(second)
    expect(await first.nextStarting("QUIT")).toBe("QUIT You have been replaced by a new spectator.")
    // Back at once, before the copies of that QUIT (100 and 200 ms later) have gone.
    await spectate(first)
    for (let copy = 0; copy < 3; copy++) {
      expect(await second.nextStarting("QUIT")).toBe("QUIT You have been replaced by a new spectator.")
    }
    // Its own copies were due before the second's last one; a round trip makes sure none is on its way.
    first.send("KEY \f")
    await first.nextStarting("DISPLAY")
    expect(first.received.filter((message) => message.startsWith("QUIT"))).toHaveLength(1)
  })
})

describe("quitting, acknowledged", () => {
  it("a Q from a player or a spectator that has quit already is answered with the same QUIT", async () => {
    const { port } = await serve()
    const player = await client(port)
    player.send("PLAY Alice")
    await player.nextStarting("DISPLAY")
    const watcher = await client(port)
    await spectate(watcher)
    for (const [c, quit] of [[player, "QUIT Thanks for playing!"], [watcher, "QUIT Thanks for watching!"]] as const) {
      c.send("KEY Q")
      expect(await c.nextStarting("QUIT")).toBe(quit)
      // That QUIT was "lost": the client asks again, and again.
      c.send("KEY Q")
      expect(await c.next()).toBe(quit)
      c.send("KEY Q")
      expect(await c.next()).toBe(quit)
    }
    // A stranger's Q is still refused.
    const stranger = await client(port)
    stranger.send("KEY Q")
    expect(await stranger.next()).toBe("NO you have not joined this game; send PLAY name or SPECTATE first")
  })
})

/** A peer of the host, played by the test: it keeps what it is sent. */
const peer = (id: string) => {
  const received: Array<string> = []
  const self: Peer = { id, keepsBytes: false, send: (data) => void received.push(typeof data === "string" ? data : Buffer.from(data).toString("latin1")) }
  return { self, received }
}
const bytes = (text: string) => Buffer.from(text, "latin1")

describe("--idle-timeout", () => {
  // On the test clock: a minute passes in no time.
  it.scoped("a player silent that long is counted as having quit, as if it had sent KEY Q; one that speaks is not", () =>
    Effect.gen(function*() {
      const host = yield* makeLiveGame({ map: loadMap("small.txt"), idleTimeout: "1 minute" })
      const events = yield* host.events
      const [silent, talker, watcher] = [peer("silent"), peer("talker"), peer("watcher")]
      yield* receiveNow(host, silent.self, bytes("PLAY Silent"))
      yield* receiveNow(host, talker.self, bytes("PLAY Talker"))
      yield* receiveNow(host, watcher.self, bytes("SPECTATE"))
      for (let second = 0; second < 59; second++) {
        yield* TestClock.adjust("1 second")
        yield* receiveNow(host, talker.self, bytes("KEY \f"))
      }
      expect(host.state().players.map((each) => each.active)).toEqual([true, true])
      yield* TestClock.adjust("2 seconds")
      expect(host.state().players.map((each) => each.active)).toEqual([false, true])
      expect(silent.received.at(-1)).toBe("QUIT You were silent too long: the server counts you as having quit.")
      // As a recording keeps it: a KEY Q from that client, which replays the same.
      expect(Chunk.toArray(yield* Queue.takeAll(events)).at(-1)).toMatchObject({ _tag: "Took", client: "silent", request: { _tag: "Key", key: "Q" } })
      // The spectator is never dropped: its silence is normal.
      expect(host.state().spectator).toBe("watcher")
    }).pipe(Effect.withRandom(Random.make(1))))

  it.scoped("without it (the host's default), a silent player stays", () =>
    Effect.gen(function*() {
      const host = yield* makeLiveGame({ map: loadMap("small.txt") })
      yield* receiveNow(host, peer("silent").self, bytes("PLAY Silent"))
      yield* TestClock.adjust("1 hour")
      expect(host.state().players.map((each) => each.active)).toEqual([true])
    }).pipe(Effect.withRandom(Random.make(1))))
})

describe("a flood of hostile datagrams", () => {
  it.scoped("20,000 of them (a megabyte of log, were each logged) write less than 100 KB of log at the default level, and the counts are logged", () =>
    Effect.gen(function*() {
      const folder = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "nuggets-flood-"))),
        (folder) => Effect.sync(() => rmSync(folder, { recursive: true, force: true }))
      )
      const path = join(folder, "server.log")
      const fd = yield* Effect.acquireRelease(Effect.sync(() => openSync(path, "a")), (fd) => Effect.sync(() => closeSync(fd)))
      const flood = Effect.gen(function*() {
        const host = yield* makeLiveGame({ map: loadMap("small.txt") })
        const hostile = [
          bytes("\u0000\u00ff garbage"),
          bytes("HELLO"),
          bytes("KEY xyz"),
          bytes("PLAY "),
          bytes("SPECTATE"),
          bytes("KEY h"),
          new Uint8Array(2000).fill(0x41)
        ]
        const peers = Array.from({ length: 40 }, (_, i) => peer(`10.0.0.${i}:666`).self)
        // As fast as they come: all within one minute of the log's limits.
        for (let i = 0; i < 20_000; i++) yield* receiveNow(host, peers[i % peers.length]!, hostile[i % hostile.length]!)
        // A minute on, the counts of what was held back are written.
        yield* TestClock.adjust("61 seconds")
      })
      yield* flood.pipe(
        Effect.withRandom(Random.make(1)),
        Effect.provide(Logger.replace(Logger.defaultLogger, lineLogger(fd))),
        Logger.withMinimumLogLevel(LogLevel.Info)
      )
      const size = statSync(path).size
      expect(size).toBeLessThan(100_000)
      const log = readFileSync(path, "utf8")
      expect(log).toMatch(/WARN 10\.0\.0\.0:666: ignored message of 10 bytes/)
      expect(log).toMatch(/WARN 10\.0\.0\.\d+:666: \d+ more lines in the last \d+ s, not logged/)
    }), 60_000)
})
