import { afterAll, describe, expect, it } from "@effect/vitest"
import { cursorHide, cursorShow } from "ansi-escapes"
import { Effect, Either, Logger, LogLevel } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runBots } from "../src/bot/bots.js"
import { rules2019 } from "../src/core/rules.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
import { parseRecording } from "../src/recording/format.js"
import { nuggetsInProcess } from "./cli/in-process.js"
import { startServer, TestClient } from "./server/harness.js"
import { loadMap } from "./support.js"

const dir = mkdtempSync(join(tmpdir(), "nuggets-recording-"))
const file = (name: string) => join(dir, name)
const quiet = Logger.withMinimumLogLevel(LogLevel.None)

/**
 * A real game over UDP, recorded: five random bots (they swap places and steal), a player
 * of the test's own that runs and then quits, and two spectators, the first replaced.
 */
const recordGame = async (path: string) => {
  const server = await startServer({ map: loadMap("small.txt"), seed: 21, rules: { ...rules2019, variant: "steal" }, record: path })
  const runner = await TestClient.open(server.port)
  const first = await TestClient.open(server.port)
  const second = await TestClient.open(server.port)
  try {
    first.send("SPECTATE")
    await first.nextStarting("DISPLAY")
    runner.send("PLAY Runner")
    await runner.nextStarting("DISPLAY")
    for (const key of "LJHKYUBN") runner.send(`KEY ${key}`)
    runner.send("KEY Q")
    await runner.nextStarting("QUIT")
    second.send("SPECTATE")
    await first.nextStarting("QUIT")
    const bots = runBots({ host: "127.0.0.1", port: server.port, count: 5, strategy: "random", seed: 3, rate: 300 })
    await Effect.runPromise(bots.pipe(quiet, Effect.provide(nodeUdpLayer)))
    return await server.result
  } finally {
    await Promise.all([runner.close(), first.close(), second.close(), server.stop()])
  }
}

const replay = (...args: ReadonlyArray<string>) => nuggetsInProcess("replay", ...args)

/** A cast's events, after its header. */
const events = (cast: string) => cast.trimEnd().split("\n").slice(1).map((line) => JSON.parse(line) as [number, string, string])

/** One game for the whole file: its tests read the recording, and none changes it. */
const recorded = file("game.ndjson")
const gameOver = recordGame(recorded)

describe("recordings", () => {

  it("a real game recorded over UDP replays identically with --check", async () => {
    const { summary } = await gameOver
    const text = readFileSync(recorded, "utf8")
    expect(text).not.toMatch(/127\.0\.0\.1/)
    const recording = Either.getOrThrow(parseRecording(text))
    expect(recording.header).toMatchObject({ seed: 21, dialect: "2019", program: expect.any(String) })
    expect(recording.header.rules.variant).toBe("steal")
    const messages = recording.entries.filter((entry) => "message" in entry).map((entry) => "message" in entry && entry.message)
    expect(messages).toEqual(expect.arrayContaining(["SPECTATE", "PLAY Runner", "KEY L", "KEY Q"]))
    expect(recording.entries.at(-1)).toMatchObject({ end: "over", summary })
    const checked = await replay(recorded, "--check")
    expect(checked.stdout).toMatch(/OK — \d+ moves, \d+ checkpoints and the summary match/)
    expect(checked.code).toBe(0)
  }, 60_000)

  it("reads and replays a recording that names its dialect and sight rule as earlier versions did (spec, cs50-2021)", async () => {
    await gameOver
    const [header, ...rest] = readFileSync(recorded, "utf8").split("\n")
    for (const [dialect, sight, means] of [["spec", "spec", "2019"], ["cs50-2021", "spec", "2021"]] as const) {
      const old = JSON.parse(header!)
      const text = [JSON.stringify({ ...old, dialect, rules: { ...old.rules, sight } }), ...rest].join("\n")
      const recording = Either.getOrThrow(parseRecording(text))
      expect(recording.header.dialect).toBe(means)
      expect(recording.header.rules.sight).toBe("allSpots")
      if (dialect === "spec") {
        writeFileSync(file("earlier.ndjson"), text)
        const checked = await replay(file("earlier.ndjson"), "--check")
        expect(checked.code).toBe(0)
      }
    }
  }, 60_000)

  it("fails --check, naming the first difference, with the seed changed, by another version, or with the map changed", async () => {
    await gameOver
    const text = readFileSync(recorded, "utf8")
    const [header, ...rest] = text.split("\n")
    const variant = (name: string, change: (header: Record<string, unknown>) => void) => {
      const parsed = JSON.parse(header!) as Record<string, unknown>
      change(parsed)
      writeFileSync(file(name), [JSON.stringify(parsed), ...rest].join("\n"))
      return file(name)
    }
    const seed = await replay(variant("seed.ndjson", (h) => (h.seed = 22)), "--check")
    expect(seed.code).toBe(1)
    expect(seed.stderr).toMatch(/^nuggets: .*seed\.ndjson — after move \d+ \([\d.]+ s\): checkpoint 1 differs .*: out of sync\n$/)
    const version = await replay(variant("version.ndjson", (h) => (h.program = "0.0.1")), "--check")
    expect(version.stderr).toMatch(/recorded by nuggets 0\.0\.1; this is nuggets .*, which may play it differently/)
    const map = await replay(variant("map.ndjson", (h) => (h.map = String(h.map).replace(".", "#"))), "--check")
    expect(map.stderr).toMatch(/the map in the header was changed/)
    expect([version.code, map.code]).toEqual([1, 1])
  }, 60_000)

  it("fails --check when the end line's standings differ from the game replayed; without them (as earlier versions wrote it), it passes", async () => {
    await gameOver
    const lines = readFileSync(recorded, "utf8").split("\n")
    const at = lines.length - 2
    const { standings, ...end } = JSON.parse(lines[at]!) as { standings: Array<{ purse: number }> }
    expect(standings.length).toBeGreaterThan(0)
    const edited = (name: string, line: unknown) => {
      writeFileSync(file(name), [...lines.slice(0, at), JSON.stringify(line), ...lines.slice(at + 1)].join("\n"))
      return replay(file(name), "--check")
    }
    const changed = await edited("standings.ndjson", { ...end, standings: standings.map((each, i) => (i === 0 ? { ...each, purse: each.purse + 1 } : each)) })
    expect(changed.code).toBe(1)
    expect(changed.stderr).toMatch(/^nuggets: .*standings\.ndjson — after move \d+ \([\d.]+ s\): the recorded standings differ from the replayed ones\n$/)
    const earlier = await edited("no-standings.ndjson", end)
    expect(earlier.stdout).toMatch(/OK — \d+ moves, \d+ checkpoints and the summary match/)
  }, 60_000)

  it("a cast of a player's screen: a v2 header, times that never go back, and the summary at the end", async () => {
    const { summary } = await gameOver
    const made = await replay(recorded, "--cast", file("b.cast"), "--as", "B")
    expect(made.code).toBe(0)
    const [header, ...events] = readFileSync(file("b.cast"), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
    expect(header).toMatchObject({ version: 2, width: 80, height: 11 })
    expect(events.length).toBeGreaterThan(20)
    const times = events.map(([time]: [number]) => time)
    expect(times.every((time: number, i: number) => i === 0 || time >= times[i - 1]!)).toBe(true)
    expect(events.every(([, kind, text]: [number, string, string]) => kind === "o" && typeof text === "string")).toBe(true)
    expect(events[0][2]).toContain("Player B has")
    const final: string = events.at(-1)[2]
    expect(final).toContain("GAME OVER:\r\n 1. ")
    // The terminal gets its cursor back once the cast has played.
    expect(events[0][2].startsWith(cursorHide)).toBe(true)
    expect(final.endsWith(cursorShow)).toBe(true)
    for (const row of summary.trimEnd().split("\n")) expect(final).toContain(row.split(/ +/).slice(2).join(" "))
    expect(final).toMatch(/ B +\d+ [^\r]*<- (winner, )?you/)
  }, 60_000)

  it("a cast of a game stopped with its gold on the map names no winner and says how many nuggets were left; no cast has the playback's bar", async () => {
    // One place in the game: its one player leaves with every letter used, and the game ends with the gold where it lies.
    const path = file("alone.ndjson")
    const server = await startServer({ map: loadMap("small.txt"), seed: 5, rules: { ...rules2019, maxPlayers: 1 }, record: path })
    const [ada, watcher] = [await TestClient.open(server.port), await TestClient.open(server.port)]
    try {
      watcher.send("SPECTATE")
      await watcher.nextStarting("DISPLAY")
      ada.send("PLAY Ada")
      await ada.nextStarting("DISPLAY")
      ada.send("KEY Q")
      expect(await watcher.nextStarting("GAMEOVER")).toMatch(/^GAMEOVER\nA +0 Ada/)
      expect((await server.result).ending._tag).toBe("Stopped")
    } finally {
      await Promise.all([ada.close(), watcher.close(), server.stop()])
    }
    expect(JSON.parse(readFileSync(path, "utf8").trimEnd().split("\n").at(-1)!)).toMatchObject({ end: "stopped" })
    const cast = await replay(path, "--cast", "-")
    const final = events(cast.stdout).at(-1)![2]
    expect(final).toContain("GAME STOPPED:\r\n 1. A 0 Ada\r\nNo winner: 250 nuggets left on the map.")
    expect(final).not.toContain("winner,")
    for (const [, , text] of [...events(cast.stdout), ...events((await replay(recorded, "--cast", "-", "--as", "B")).stdout)]) {
      expect(text).not.toMatch(/\[[#-]{5,}\]/)
    }
  })

  it("a game that never ended, and a recording cut mid-line, still replay", async () => {
    const path = file("stopped.ndjson")
    const server = await startServer({ map: loadMap("main.txt"), seed: 4, record: path })
    const player = await TestClient.open(server.port)
    player.send("PLAY Alice")
    await player.nextStarting("DISPLAY")
    for (const key of "hjkl") player.send(`KEY ${key}`)
    player.send("KEY ?")
    await player.nextStarting("NO")
    await server.stop()
    await player.close()
    const stopped = await replay(path, "--check")
    expect(stopped.stdout).toMatch(/OK — 5 moves, \d+ checkpoints and the summary match \(the game was stopped before its gold ran out\)/)
    // Killed mid-write: the last line is cut short, and everything before it still counts.
    const text = readFileSync(path, "utf8")
    const lines = text.split("\n")
    writeFileSync(file("cut.ndjson"), lines.slice(0, 4).join("\n") + "\n" + lines[4]!.slice(0, 10))
    expect((await replay(file("cut.ndjson"), "--check")).stdout).toMatch(/OK — 2 moves, \d+ checkpoints? match \(the recording stops before the end\)/)
  }, 60_000)

  it("refuses what is not a recording, and a letter no one played", async () => {
    writeFileSync(file("junk.txt"), "hello\n")
    expect(await replay(file("junk.txt"))).toMatchObject({ code: 1, stderr: expect.stringMatching(/not a nuggets recording\n$/) })
    await gameOver
    expect((await replay(recorded, "--as", "Z", "--cast", file("z.cast"))).stderr).toMatch(/player Z never joined this game/)
    expect((await replay(recorded, "--as", "alice")).stderr).toMatch(/--as — a player's letter/)
  }, 60_000)
})

describe("casts, and files never lost", () => {

  it("--cast - writes the cast to stdout; --speed 4 plays it four times as fast; --no-color has no colours; --as b is B", async () => {
    await gameOver
    const [plain, fast] = await Promise.all([replay(recorded, "--cast", "-", "--as", "b"), replay(recorded, "--cast", "-", "--as", "B", "--speed", "4", "--no-color")])
    expect(plain.code).toBe(0)
    expect(plain.stdout).toMatch(/^\{"version":2,/)
    const [slow, quick] = [events(plain.stdout), events(fast.stdout)]
    expect(quick).toHaveLength(slow.length)
    expect(quick.at(-1)![0]).toBeCloseTo(slow.at(-1)![0] / 4, 2)
    expect(slow.some(([, , text]) => text.includes("\u001b[0;1;7m"))).toBe(true)
    expect(quick.some(([, , text]) => /\u001b\[[\d;]*m/.test(text))).toBe(false)
    expect(slow[0]![2]).toContain("Player B has")
  }, 60_000)

  it("an existing cast is kept without --overwrite and replaced with it; the recording itself never", async () => {
    await gameOver
    const cast = file("kept.cast")
    writeFileSync(cast, "mine\n")
    expect(await replay(recorded, "--cast", cast)).toMatchObject({
      code: 1,
      stderr: `nuggets: ${cast} — already exists: --overwrite lets --cast replace it\n`
    })
    expect(readFileSync(cast, "utf8")).toBe("mine\n")
    expect((await replay(recorded, "--cast", cast, "--overwrite")).code).toBe(0)
    expect(readFileSync(cast, "utf8")).toMatch(/^\{"version":2,/)
    const before = readFileSync(recorded, "utf8")
    expect((await replay(recorded, "--cast", recorded, "--overwrite")).stderr).toMatch(/it is the recording: --cast must not write over it/)
    expect(readFileSync(recorded, "utf8")).toBe(before)
  }, 60_000)

  it("a recording never replaces a file that exists unless told to, even one that appears after the check", async () => {
    const path = file("taken.ndjson")
    writeFileSync(path, "mine\n")
    const refused = await startServer({ map: loadMap("small.txt"), seed: 1, record: path }).then((server) => server.result).then(
      () => "recorded",
      (error: unknown) => String(error)
    )
    expect(refused).toMatch(/EEXIST/)
    expect(readFileSync(path, "utf8")).toBe("mine\n")
    const replaced = await startServer({ map: loadMap("small.txt"), seed: 1, record: path, overwriteRecording: true })
    await replaced.stop()
    expect(readFileSync(path, "utf8")).toMatch(/^\{"format":/)
  }, 60_000)
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))
