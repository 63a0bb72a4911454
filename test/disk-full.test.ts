import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { nuggetsInProcess } from "./cli/in-process.js"
import { call, postGame, startHost, type TestHost, untilShown } from "./host/harness.js"
import { collectAllGold, gridOf, TestClient } from "./server/harness.js"
import { mountTmpfs, type SmallDisk, tmpfsRefused } from "./tmpfs.js"
import { freeUdpPort } from "./net/freePort.js"

/**
 * Issue 34, fault 1: a disk that fills (a tmpfs of its own, filled to ENOSPC). A recording
 * that cannot take its header stops its game's start. On a host, a game
 * that ends then leaves the books, its place and port free, and the log says what could
 * not be written; new games are refused with 503 and why; once space returns, `--open`
 * opens its game again and the archive indexes the game it could not.
 */


/**
 * The host's retries, held until the test says space has returned: each one then as soon as
 * asked, so that the test awaits what they do, not a timer.
 */
const heldRetries = () => {
  const latch = Effect.runSync(Effect.makeLatch(false))
  return {
    retry: Schedule.spaced("10 millis").pipe(Schedule.modifyDelayEffect((_, delay) => Effect.as(latch.await, delay))),
    release: () => Effect.runSync(latch.open)
  }
}

/** Alice plays the host's one game to its end (all the gold), watched; `meanwhile` runs once she is in. */
const playToTheEnd = async (port: number, meanwhile: () => void) => {
  const [alice, spectator] = [await TestClient.open(port), await TestClient.open(port)]
  try {
    alice.send("PLAY Alice")
    await alice.nextStarting("DISPLAY")
    spectator.send("SPECTATE")
    const view = await spectator.nextStarting("DISPLAY")
    meanwhile()
    expect(await collectAllGold(alice, spectator, gridOf(view))).toMatch(/^GAMEOVER/)
  } finally {
    await alice.close()
    await spectator.close()
  }
}

const lines = (host: TestHost, pattern: RegExp) => host.log.filter((line) => pattern.test(line))

const refused = tmpfsRefused()

describe.skipIf(refused !== undefined)(refused ?? "a disk that fills", () => {
  let disk: SmallDisk
  beforeEach(() => void (disk = mountTmpfs("8m")))
  afterEach(() => disk.unmount())

  it("serve --record on a full disk stops with the file and why, not a game played unrecorded", async () => {
    disk.fill()
    const path = join(disk.path, "game.ndjson")
    const ran = await nuggetsInProcess("serve", "maps/small.txt", "--host", "127.0.0.1", "--record", path)
    expect(ran.code).not.toBe(0)
    expect(ran.stderr).toBe(`nuggets: ${path} — cannot record: no space left\n`)
    expect(ran.log).not.toMatch(/recording stopped/)
    // The empty file it made is gone: a second try, once there is room, is not refused for it.
    expect(existsSync(path)).toBe(false)
  })

  it("frees a game's place and port when it ends on a full disk, says what was not written, answers 503, and catches up once space returns", async () => {
    const port = await freeUdpPort()
    const { retry, release } = heldRetries()
    const host = await startHost({ dataDir: disk.path, open: 1, maxGames: 1, ports: { first: port, last: port }, retry })
    try {
      await untilShown(host.games, () => host.games.running().length === 1)
      const first = host.games.running()[0]!
      expect(first.port).toBe(port)

      await playToTheEnd(port, disk.fill)
      // Its place and its port come back: no game is left in the books, none closing.
      await untilShown(host.games, () => host.games.unarchived().length === 0 && host.games.startingNow() === 0)
      expect(host.games.archived()).toBe(0)

      // New games: 503, with why, as long as the disk is full; said in the log once.
      for (let i = 0; i < 2; i++) {
        const answer = await postGame(host.url)
        expect(answer.status).toBe(503)
        expect(answer.body.error).toMatch(/^cannot start a game: .*(database or disk is full|no space left)/)
      }
      expect(lines(host, /^WARN new games refused: cannot start a game: .*(database or disk is full|no space left)/)).toHaveLength(1)
      // What could not be written, each once: the end of the recording, and the game's row.
      expect(lines(host, new RegExp(`^WARN game ${first.id}: .*${first.id}\\.ndjson — recording stopped: no space left$`))).toHaveLength(1)
      expect(lines(host, new RegExp(`^WARN game ${first.id}: the archive could not index it: .*archive\\.db — the archive failed: database or disk is full; tried again until it can$`)))
        .toHaveLength(1)
      expect((await call(host.url, `/api/games/${first.id}`)).body).toMatchObject({ live: false, outcome: "playing" })

      disk.free()
      release()
      // Space is back: `--open` opens a game again, on the port the first game gave back, and the first is indexed.
      await untilShown(host.games, () => host.games.running().length === 1 && host.games.archived() === 1)
      expect(host.games.running()[0]!.port).toBe(port)
      expect(host.log).toContain(`INFO game ${first.id}: the archive indexed it, late`)
      expect(host.log).toContain("INFO new games start again")
      const indexed = (await call(host.url, `/api/games/${first.id}`)).body
      expect(indexed.live).toBe(false)
      expect(indexed.outcome).not.toBe("playing")
      // The game opened again is recorded: its header is on disk.
      const recording = readFileSync(join(disk.path, "games", `${host.games.running()[0]!.id}.ndjson`), "utf8")
      expect(JSON.parse(recording.split("\n")[0]!)).toMatchObject({ format: expect.any(String) })
    } finally {
      await host.stop({ keepData: true })
    }
  })

  it("stops at once with the archive's work still owed, and the next start indexes the game", async () => {
    const { retry } = heldRetries()
    const host = await startHost({ dataDir: disk.path, open: 1, retry })
    let id = ""
    try {
      await untilShown(host.games, () => host.games.running().length === 1)
      const game = host.games.running()[0]!
      id = game.id
      await playToTheEnd(game.port, disk.fill)
      await untilShown(host.games, () => host.games.unarchived().length === 0)
      expect(lines(host, /the archive could not index it/)).toHaveLength(1)
    } finally {
      // The retries are held: a stop that waited for them would not end.
      await host.stop({ keepData: true })
    }
    disk.free()
    const again = await startHost({ dataDir: disk.path })
    try {
      expect((await call(again.url, `/api/games/${id}`)).body.outcome).not.toBe("playing")
    } finally {
      await again.stop({ keepData: true })
    }
  })
})
