import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { mapText } from "../src/core/map.js"
import { specRules } from "../src/core/rules.js"
import { digestOf, formatName, formatVersion, parseRecording } from "../src/recording/format.js"
import { gapBefore, recordedFrames } from "../src/recording/frames.js"
import { startPlayback, updatePlayback } from "../src/recording/player.js"
import { version } from "../src/version.js"
import { nuggets, tmuxPane } from "./client/tmux.js"
import { loadMap } from "./support.js"

/** A recording written by hand: Alice joins, then walks a key a second; a spectator joins too. */
const dir = mkdtempSync(join(tmpdir(), "nuggets-replay-"))
const map = mapText(loadMap("main.txt"))
const keys = "hhhhllllkkjj"
const recordingText = [
  { format: formatName, formatVersion, program: version, seed: 3, rules: specRules, dialect: "spec", map, mapDigest: digestOf(map), started: "2026-01-01T00:00:00.000Z" },
  { t: 0, client: 0, message: "PLAY Alice" },
  ...Array.from(keys, (key, i) => ({ t: 1000 * (i + 1), client: 0, message: `KEY ${key}` }))
].map((line) => JSON.stringify(line)).join("\n") + "\n"
const file = join(dir, "walk.ndjson")
writeFileSync(file, recordingText)
process.on("exit", () => rmSync(dir, { recursive: true, force: true }))

/** Alice's screens as the replay should draw them, by move. */
const expected = Effect.runSync(recordedFrames(Either.getOrThrow(parseRecording(recordingText)), "A")).frames

const moveOf = (lines: ReadonlyArray<string>) => Number(/\[move (\d+)\//.exec(lines[0]!)?.[1] ?? NaN)
const gridOf = (lines: ReadonlyArray<string>) => lines.slice(1, 22).map((line) => line.trimEnd())
/** Alice's view after `move`: only moves that changed what she sees have a frame of their own. */
const frameAt = (move: number) => expected.findIndex((frame) => frame.move === move)
const viewAt = (move: number) => expected[frameAt(move)]!.client.report.view!.map((line) => line.trimEnd())

describe("nuggets replay in tmux", () => {
  it.scopedLive("shows what player A saw, move by move; space pauses, . steps, + speeds up, q quits", () =>
    Effect.gen(function*() {
      const pane = yield* tmuxPane([...nuggets, "replay", file, "--as", "A"], { columns: 100, rows: 30 })
      const first = yield* pane.waitFor((lines) => moveOf(lines) >= 1)
      expect(first[0]).toMatch(/^Player A has 0 nuggets \(250 nuggets unclaimed\)\.  \[move \d+\/13 0:\d\d\]/)
      yield* pane.sendKeys("Space")
      const paused = yield* pane.waitFor((lines) => lines[0]!.includes("paused"))
      const at = moveOf(paused)
      expect(gridOf(paused)).toEqual(viewAt(at))
      const next = expected[frameAt(at) + 1]!.move
      yield* pane.sendKeys(".")
      const stepped = yield* pane.waitFor((lines) => moveOf(lines) === next)
      expect(stepped[0]).toContain("paused")
      expect(gridOf(stepped)).toEqual(viewAt(next))
      yield* pane.sendKeys("+")
      yield* pane.waitFor((lines) => lines[0]!.includes(" x2 paused]"))
      yield* pane.sendKeys("q")
      const after = yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      expect(after.slice(0, 3)).toEqual([`stopped at move ${next} of 13`, "exit=0", "tty=restored"])
    }), 60_000)

  it.scopedLive("plays to the end at speed 64", () =>
    Effect.gen(function*() {
      const pane = yield* tmuxPane([...nuggets, "replay", file, "--speed", "64"], { columns: 100, rows: 30 })
      const after = yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      expect(after.slice(0, 3)).toEqual(["the recording ends at move 13 of 13", "exit=0", "tty=restored"])
    }), 60_000)
})

describe("playback, as plain functions", () => {
  const window = { columns: 100, rows: 30 }
  const key = (sequence: string) => ({ _tag: "Key", sequence }) as const
  const tick = { _tag: "Tick" } as const

  it("waits the recorded gap (divided by the speed) before each frame, and ends after the last", () => {
    let playback = startPlayback(expected, 2, window, 0)
    // Alice stood still for 5 s: the gap is cut to 2 s.
    const gap = Math.min(2000, expected[1]!.t - expected[0]!.t) / 2
    expect(gap).toBe(gapBefore(expected, 1) / 2)
    expect(updatePlayback(playback, expected, tick, gap - 1).index).toBe(0)
    playback = updatePlayback(playback, expected, tick, gap)
    expect(playback.index).toBe(1)
    for (let now = gap; playback.done === undefined && now < 100_000; now += 100) playback = updatePlayback(playback, expected, tick, now)
    expect([playback.index, playback.done]).toEqual([expected.length - 1, "end"])
  })

  it("pauses, steps, changes speed within bounds, and quits", () => {
    let playback = startPlayback(expected, 1, window, 0)
    playback = updatePlayback(playback, expected, key(" "), 10)
    expect(updatePlayback(playback, expected, tick, 60_000).index).toBe(0)
    playback = updatePlayback(playback, expected, key("."), 20)
    expect([playback.index, playback.paused]).toEqual([1, true])
    for (let i = 0; i < 20; i++) playback = updatePlayback(playback, expected, key("+"), 30)
    expect(playback.speed).toBe(64)
    for (let i = 0; i < 20; i++) playback = updatePlayback(playback, expected, key("-"), 30)
    expect(playback.speed).toBe(1 / 8)
    expect(updatePlayback(playback, expected, key("q"), 40).done).toBe("quit")
  })
})
