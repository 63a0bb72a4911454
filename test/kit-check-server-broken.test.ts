import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { rules2021 } from "../src/core/rules.js"
import { failsWith, mainMap, resultOf, run } from "./kit/checkServer.js"
import { brokenServer } from "./kit/broken.js"

/**
 * `check server` against servers broken on purpose, one bug each: the check for that bug
 * fails, saying what it sent, what it got and the spec's line. (Apart from the runs against
 * our own server, so that the two halves run side by side.)
 */

/** DISPLAY positions of `@`, per client, to find a player moved by someone else. */
const selfAt = (display: string) => display.indexOf("@")

describe.concurrent("check server against broken servers: each bug fails its check", () => {
  it.scopedLive("join-spectator: no GOLD for a new client", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("join-spectator", { down: (text, { fromServer }) => (fromServer.length <= 3 && text.startsWith("GOLD") ? undefined : text) })
      expect(failures[0]).toMatchObject({ what: "no GOLD came to the new spectator", sent: `"SPECTATE"`, spec: { line: "373-375" } })
      expect(failures[0]!.got).toMatch(/^"GRID 21 79", "DISPLAY\\n/)
    }), 60_000)

  it.scopedLive("join-player: GRID before OK", () =>
    Effect.gen(function*() {
      let ok: string | undefined
      const failures = yield* failsWith("join-player", {
        down: (text) => {
          if (text.startsWith("OK")) return void (ok = text)
          if (text.startsWith("GRID") && ok) return [text, ok]
          return text
        }
      })
      expect(failures[0]).toMatchObject({ what: "the answer to PLAY began with GRID, not OK", sent: `"PLAY nuggets check"`, spec: { line: "344-348" } })
    }), 60_000)

  it.scopedLive("unknown-keys: an unknown key answered with QUIT", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("unknown-keys", { down: (text) => text.replace(/^NO unknown keystroke$/, "QUIT unknown keystroke") })
      expect(failures[0]).toMatchObject({ what: "the unknown key 'z' ended the player's game", sent: `"KEY z"`, got: `"QUIT unknown keystroke"`, spec: { line: "424-429" } })
    }), 60_000)

  it.scopedLive("bad-messages: a server that stops answering after an empty datagram", () =>
    Effect.gen(function*() {
      let dead = false
      const failures = yield* failsWith("bad-messages", { answer: (text) => ((dead ||= text === "") ? [] : undefined) })
      expect(failures.at(-1)).toMatchObject({ what: "after these datagrams the server no longer answers", sent: `"SPECTATE"`, got: "nothing", spec: { line: "66" } })
    }), 60_000)

  it.scopedLive("move-keys: capitals that move one step only", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("move-keys", { up: (text) => text.replace(/^KEY ([HJKLYUBN])$/, (_, key: string) => `KEY ${key.toLowerCase()}`) })
      expect(failures[0]!.what).toMatch(/^KEY [HJKLYUBN] from row \d+ col \d+ should take the player to row \d+ col \d+.*; its DISPLAY shows it at row \d+ col \d+, and the spectator shows [A-Z] at row \d+ col \d+ \(and \d+ more like it\)$/)
      expect(failures[0]).toMatchObject({ spec: { line: "158" } })
      expect(failures[0]!.got).toMatch(/^"DISPLAY\\n/)
    }), 30_000)

  it.scopedLive("gold-to-all: GOLD only to the player who collected it", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("gold-to-all", { down: (text, { fromServer }) => (fromServer.length > 4 && /^GOLD 0 \d+ \d+$/.test(text) ? undefined : text) })
      expect(failures.map((failure) => failure.what)).toEqual([
        expect.stringMatching(/^player [A-Z] collected gold, but the spectator was not sent a GOLD saying \d+ nuggets are left$/),
        expect.stringMatching(/^player [A-Z] collected gold, but player [A-Z] was not sent a GOLD saying \d+ nuggets are left$/)
      ])
      expect(failures[0]).toMatchObject({ spec: { line: "358" } })
    }), 60_000)

  it.scopedLive("gold-to-all: the collector's GOLD with a stale count of nuggets left, corrected by the next", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("gold-to-all", {
        down: (text) => {
          const gold = /^GOLD (\d+) (\d+) (\d+)$/.exec(text)
          if (gold === null || gold[1] === "0") return text
          const [, n, p, r] = gold.map(Number)
          return [`GOLD ${n} ${p} ${r! + n!}`, `GOLD 0 ${p} ${r}`]
        }
      })
      expect(failures).toEqual([
        expect.objectContaining({
          what: expect.stringMatching(/^player A was sent a GOLD saying (\d+) nuggets are left as it collected (\d+), when \d+ were: a later GOLD said so, but a client shows the wrong count meanwhile$/),
          got: expect.stringMatching(/^"GOLD \d+ \d+ \d+", "GOLD 0 \d+ \d+"$/),
          spec: expect.objectContaining({ line: "402-405" })
        })
      ])
    }), 60_000)

  it.scopedLive("swap: the player moved aside is not told", () =>
    Effect.gen(function*() {
      const lastSelf = new Map<number, { at: number; keys: number }>()
      const failures = yield* failsWith("swap", {
        down: (text, { client, fromClient }) => {
          if (!text.startsWith("DISPLAY")) return text
          const before = lastSelf.get(client)
          // Moved without a key of its own: swapped by someone else; that DISPLAY never comes.
          if (before && before.at !== selfAt(text) && before.keys === fromClient.length && selfAt(text) !== -1) return undefined
          lastSelf.set(client, { at: selfAt(text), keys: fromClient.length })
          return text
        }
      })
      expect(failures[0]!.what).toMatch(/^player [A-Z] moved onto [A-Z] at row \d+ col \d+; [A-Z] should now stand at row \d+ col \d+, but its DISPLAY shows it at row \d+ col \d+ and the spectator at row \d+ col \d+$/)
      expect(failures[0]).toMatchObject({ spec: { line: "34" } })
    }), 60_000)

  it.scopedLive("spectator-replacement: the old spectator is never told to quit", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("spectator-replacement", { down: (text) => (text.startsWith("QUIT You have been replaced") ? undefined : text) })
      expect(failures[0]).toMatchObject({ what: "the spectator it replaced was not told to QUIT", spec: { line: "369-371" } })
    }), 60_000)

  it.scopedLive("quit: Q not answered", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("quit", { down: (text) => (text === "QUIT Thanks for playing!" ? undefined : text) })
      expect(failures[0]).toMatchObject({ what: expect.stringMatching(/^player [A-Z] pressed Q and was not answered QUIT$/), sent: `"KEY Q"`, spec: { line: "412-414" } })
    }), 60_000)

  it.scopedLive("player-limit: a 27th player let in", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("player-limit", { down: (text) => (text.startsWith("NO Sorry - the game is full") ? ["OK Z", "GRID 21 79"] : text) }, { checkMs: 30_000 })
      expect(failures.at(-1)).toMatchObject({
        what: "with all 26 letters handed out (1 to players who quit), one more player was let in",
        sent: `"PLAY one too many"`,
        got: `"OK Z"`,
        spec: { line: "64" }
      })
    }), 60_000)

  it.scopedLive("game-over: a summary whose purses do not add up", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("game-over", { down: (text) => text.replace(/^(GAMEOVER\n[A-Z] +)(\d+)/, (_, head: string, purse: string) => `${head}${Number(purse) + 1}`) })
      expect(failures.map((failure) => failure.what)).toEqual(expect.arrayContaining([
        expect.stringMatching(/^the summary gives A \d+ nuggets, but its last GOLD said \d+$/),
        "the purses in the summary add up to 251, not the 250 the game began with"
      ]))
    }), 60_000)

  it.scopedLive("server-exit: still taking spectators after the game over", () =>
    Effect.gen(function*() {
      let over = false
      const failures = yield* failsWith("server-exit", {
        down: (text) => ((over ||= text.startsWith("GAMEOVER")), text),
        answer: (text) => (over && text === "SPECTATE" ? ["GRID 21 79"] : undefined)
      }, { checkMs: 20_000 }, { outlivesItsGame: true })
      expect(failures[0]).toMatchObject({ what: "10 s after the game ended, the server still lets a spectator in", sent: `"SPECTATE"`, got: `"GRID 21 79"`, spec: { line: "68" } })
    }), 60_000)

  it.scopedLive("names: a name left with its control character", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("names", { down: (text) => text.replace(/Bell_and/, "Bell\x07and") })
      expect(failures[0]).toMatchObject({ what: "the name in the summary holds a character that cannot be printed", got: expect.stringContaining("Bell\\x07and"), spec: { line: "418-420" } })
    }), 60_000)

  it.scopedLive("display-framing: DISPLAYs without their last newline", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("display-framing", { down: (text) => (text.startsWith("DISPLAY") ? text.slice(0, -1) : text) })
      expect(failures[0]!.what).toMatch(/^the DISPLAY's rows are not each ended by one newline \(and \d+ more like it\), sent to spectator 1$/)
      expect(failures[0]).toMatchObject({ spec: { line: "390-396" } })
    }), 60_000)

  it.scopedLive("message-form: a message of an unknown type", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("message-form", { down: (text) => (text.startsWith("OK") ? [text, "HELLO there"] : text) })
      expect(failures[0]).toMatchObject({ got: `"HELLO there"`, spec: { line: "323-325" } })
    }), 60_000)

  it.scopedLive("gold-totals: a game that starts with 240 nuggets, and a purse that grows by more than was found", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("gold-totals", {
        down: (text) => text.replace(/^GOLD 0 0 250$/, "GOLD 0 0 240").replace(/^GOLD (\d+) (\d+) (\d+)$/, (all, n: string, p: string, r: string) => (n === "0" ? all : `GOLD ${n} ${Number(p) + 1} ${r}`))
      })
      expect(failures.map((failure) => failure.what)).toEqual(expect.arrayContaining([
        "the game began with 240 nuggets (by the first GOLD), not 250",
        expect.stringMatching(/^the purse went from \d+ to \d+, but n=\d+/)
      ]))
    }), 60_000)

  it.scopedLive("pile-count: no gold in sight", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("pile-count", { down: (text) => (text.startsWith("DISPLAY") ? text.replaceAll("*", ".") : text) })
      expect(failures[0]).toMatchObject({ what: "the spectator's first view shows 0 piles of gold, not 10 to 30", spec: { line: "61" } })
    }), 60_000)

  it.scopedLive("spectator-view: a wall shown wrong to the spectator", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("spectator-view", { down: (text) => (text.startsWith("DISPLAY") && !text.includes("@") ? text.replace("+", "-") : text) }, { map: mainMap })
      expect(failures[0]).toMatchObject({ what: "row 0 col 2: the map has '+', the spectator is shown '-' (and 2 more like it)", spec: { line: "30" } })
    }), 60_000)

  it.scopedLive("visibility: a server that sees by the 2021 rule but speaks the 2019 dialect", () =>
    Effect.gen(function*() {
      const { port } = yield* brokenServer({ rules: rules2021, seed: 2 })
      const report = yield* run(port, { only: "visibility", map: mainMap })
      const result = resultOf(report, "visibility")
      expect(result.status).toBe("fail")
      expect(result.failures[0]!.what).toMatch(/^player [A-Z] at row \d+ col \d+ is shown what the rule does not give, at \d+ gridpoints? \(\d+ of \d+ views differ, at \d+ gridpoints? in all(; \d+ more differ only where the same player was shown wrong before)?\)/)
      // The cells that differ, side by side: a passage the spec's rule sees along, hidden by the 2021 rule.
      const detail = result.failures[0]!.detail ?? []
      expect(detail[1]).toMatch(/the rule gives +it was shown/)
      const differs = detail.slice(2).filter((line) => line.includes("^"))
      expect(differs.length).toBeGreaterThan(0)
      expect(result.notes[1]).toMatch(/^its views follow the 2021 rule \(sight through room spots only\): (\d+) of \1 agree/)
      expect(result.failures[0]).toMatchObject({ spec: { line: "232-237" } })
    }), 60_000)
})
