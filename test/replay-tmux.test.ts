import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gapBefore, recordedMoments } from "../src/client/playback/moments.js"
import { startPlayback, updatePlayback } from "../src/client/playback/controls.js"
import { parseRecording } from "../src/recording/format.js"
import { nuggets, tmuxPane } from "./client/tmux.js"
import { walkRecording } from "./support.js"

/** A recording written by hand: Alice joins, then walks a key a second. */
const dir = mkdtempSync(join(tmpdir(), "nuggets-replay-"))
const recordingText = walkRecording("hhhhllllkkjj")
const file = join(dir, "walk.ndjson")
writeFileSync(file, recordingText)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Alice's screens as the replay should draw them, by move. */
const expected = Effect.runSync(recordedMoments(Either.getOrThrow(parseRecording(recordingText)), 0)).moments

const moveOf = (lines: ReadonlyArray<string>) => Number(/  move (\d+)\//.exec(lines[0]!)?.[1] ?? NaN)
const gridOf = (lines: ReadonlyArray<string>) => lines.slice(1, 22).map((line) => line.trimEnd())
/** Alice's view after `move`: only moves that changed what she sees have a moment of their own. */
const momentAt = (move: number) => expected.findIndex((moment) => moment.move === move)
const viewAt = (move: number) => expected[momentAt(move)]!.client.report.view!.map((line) => line.trimEnd())

describe("nuggets replay in tmux", () => {
  it.scopedLive("shows what player A saw, move by move, with a progress bar; space pauses, . steps on, , steps back, + speeds up, ? helps, q quits", () =>
    Effect.gen(function*() {
      const pane = yield* tmuxPane([...nuggets, "replay", file, "--as", "A"], { columns: 100, rows: 30 })
      const first = yield* pane.waitFor((lines) => moveOf(lines) >= 1)
      expect(first[0]).toMatch(/^Player A has 0 nuggets \(250 nuggets unclaimed\)\.  move \d+\/13 \[#*-*\] 0:\d\d/)
      yield* pane.sendKeys("g", "Space")
      const paused = yield* pane.waitFor((lines) => lines[0]!.includes("paused"))
      const at = moveOf(paused)
      expect(gridOf(paused)).toEqual(viewAt(at))
      const next = expected[momentAt(at) + 1]!.move
      const after = expected[momentAt(at) + 2]!.move
      yield* pane.sendKeys(".")
      const stepped = yield* pane.waitFor((lines) => moveOf(lines) === next)
      expect(stepped[0]).toContain("paused")
      expect(gridOf(stepped)).toEqual(viewAt(next))
      yield* pane.sendKeys("Right")
      expect(gridOf(yield* pane.waitFor((lines) => moveOf(lines) === after))).toEqual(viewAt(after))
      // Back, by the arrow and by the comma: the same screens again.
      yield* pane.sendKeys("Left")
      expect(gridOf(yield* pane.waitFor((lines) => moveOf(lines) === next))).toEqual(viewAt(next))
      yield* pane.sendKeys(",")
      expect(gridOf(yield* pane.waitFor((lines) => moveOf(lines) === at))).toEqual(viewAt(at))
      // The bar fills as the replay goes on: the end, then the start.
      yield* pane.sendKeys("G")
      yield* pane.waitFor((lines) => lines[0]!.includes(" move 13/13 [####################] "))
      yield* pane.sendKeys("g")
      yield* pane.waitFor((lines) => /move 1\/13 \[#?-{19,20}\] /.test(lines[0]!))
      yield* pane.sendKeys("?")
      const help = yield* pane.waitFor((lines) => lines.some((line) => line.includes("one move back")))
      expect(help.join("\n")).toMatch(/\| Ctrl-Z +suspend; fg comes back +\|/)
      yield* pane.sendKeys("x")
      yield* pane.waitFor((lines) => !lines.some((line) => line.includes("one move back")))
      yield* pane.sendKeys("+")
      yield* pane.waitFor((lines) => lines[0]!.includes(" x2"))
      yield* pane.sendKeys("q")
      const ended = yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      expect(ended[0]).toMatch(/^stopped at move \d+ of 13$/)
      expect(ended.slice(1, 3)).toEqual(["exit=0", "tty=restored"])
    }), 60_000)

  it.scopedLive("Ctrl-Z in a shell with job control: stopped, the shell's prompt back; what is typed there is not the replay's; fg brings it back", () =>
    Effect.gen(function*() {
      const pane = yield* tmuxPane(["bash", "--norc", "--noprofile", "-i"], { columns: 100, rows: 30 })
      yield* pane.sendKeys("-l", `PS1='$ ' ${nuggets.join(" ")} replay ${file} --as A`)
      yield* pane.sendKeys("Enter")
      yield* pane.waitFor((lines) => moveOf(lines) >= 1)
      // Paused a few moves in, so that a "g" reaching the replay would show (it goes to the start).
      yield* pane.sendKeys("g", "Space", ".", ".", ".")
      const before = moveOf(yield* pane.waitFor((lines) => lines[0]!.includes("paused") && moveOf(lines) === expected[3]!.move))
      yield* pane.sendKeys("C-z")
      yield* pane.waitFor((lines) => lines.some((line) => /Stopped/.test(line)))
      expect(yield* pane.display("#{alternate_on}")).toBe("0")
      yield* pane.sendKeys("-l", "fg")
      yield* pane.sendKeys("Enter")
      // Back where it was: "f" and "g" went to the shell, not to the replay.
      const back = yield* pane.waitFor((lines) => lines[0]!.includes("paused") && moveOf(lines) >= 1)
      expect(moveOf(back)).toBe(before)
      expect(yield* pane.display("#{alternate_on}")).toBe("1")
      yield* pane.sendKeys("q")
      yield* pane.waitFor((lines) => lines.some((line) => line === `stopped at move ${before} of 13`))
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

  it("pauses, steps on and back, changes speed within bounds, and quits", () => {
    let playback = startPlayback(expected, 1, window, 0)
    playback = updatePlayback(playback, expected, key(" "), 10)
    expect(updatePlayback(playback, expected, tick, 60_000).index).toBe(0)
    playback = updatePlayback(playback, expected, key("."), 20)
    expect([playback.index, playback.paused]).toEqual([1, true])
    playback = updatePlayback(playback, expected, key("\u001b[C"), 20)
    expect(playback.index).toBe(2)
    playback = updatePlayback(playback, expected, key(","), 20)
    expect([playback.index, playback.paused]).toEqual([1, true])
    playback = updatePlayback(updatePlayback(playback, expected, key("\u001b[D"), 20), expected, key("\u001b[D"), 20)
    expect(playback.index).toBe(0)
    for (let i = 0; i < 20; i++) playback = updatePlayback(playback, expected, key("+"), 30)
    expect(playback.speed).toBe(64)
    for (let i = 0; i < 20; i++) playback = updatePlayback(playback, expected, key("-"), 30)
    expect(playback.speed).toBe(1 / 8)
    expect(updatePlayback(playback, expected, key("q"), 40).done).toBe("quit")
  })

  it("seeks a tenth on and back, to the end and the start; time stands still while the help is open", () => {
    const many = Array.from({ length: 100 }, (_, i) => ({ ...expected[0]!, move: i + 1, t: i * 100 }))
    let playback = updatePlayback(startPlayback(many, 1, window, 0), many, key("]"), 0)
    expect(playback.index).toBe(10)
    playback = updatePlayback(playback, many, key("["), 0)
    expect(playback.index).toBe(0)
    playback = updatePlayback(playback, many, key("G"), 0)
    expect([playback.index, playback.paused]).toEqual([99, true])
    playback = updatePlayback(playback, many, key("g"), 0)
    expect(playback.index).toBe(0)
    const helped = updatePlayback(updatePlayback(playback, many, key(" "), 0), many, key("?"), 0)
    expect(helped.helpOpen).toBe(true)
    expect(updatePlayback(helped, many, tick, 60_000).index).toBe(0)
    // Any key closes the help and does nothing else; Ctrl-Z asks to suspend.
    expect(updatePlayback(helped, many, key("."), 1)).toMatchObject({ helpOpen: false, index: 0 })
    expect(updatePlayback(playback, many, key("\u001a"), 1).suspend).toBe(true)
  })
})
