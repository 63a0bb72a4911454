import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as dgram from "node:dgram"
import { cs50Rules } from "../src/core/rules.js"
import { type CheckServerOptions, checkServer } from "../src/kit/check-server.js"
import type { Report } from "../src/kit/report.js"
import { type Bugs, brokenServer } from "./kit/broken.js"
import { scriptedServer } from "./kit/scripted.js"
import { loadMap } from "./support.js"
import { realServer } from "./client/tmux.js"

/**
 * `check server` against our own server (every check passes) and against servers broken on
 * purpose, one bug each (the check for that bug fails, saying what it sent, what it got and
 * the spec's line).
 */

const mainMap = { file: "maps/main.txt", map: loadMap("main.txt") }

const run = (port: number, options: Partial<CheckServerOptions> = {}) =>
  checkServer({
    host: "127.0.0.1",
    port,
    dialect: undefined,
    map: undefined,
    only: undefined,
    checkMs: 10_000,
    totalMs: 180_000,
    answerMs: 1000,
    ...options
  })

const resultOf = (report: Report, name: string) => {
  const result = report.checks.find((check) => check.name === name)
  if (!result) throw new Error(`no check ${name} in ${report.checks.map((check) => check.name).join(", ")}`)
  return result
}

/** The one check `only` fails against a server with `bugs`, and says why. */
const failsWith = (only: string, bugs: Bugs, options: Partial<CheckServerOptions> = {}) =>
  Effect.gen(function*() {
    const { port } = yield* brokenServer({ bugs })
    const report = yield* run(port, { only, ...options })
    expect(report.checks.map((check) => check.name)).toEqual([only])
    const result = resultOf(report, only)
    expect(result.status, JSON.stringify(result)).toBe("fail")
    if (process.env.SHOW) console.log(JSON.stringify(result.failures, null, 1))
    return result.failures
  })

const statuses = (report: Report) => Object.fromEntries(report.checks.map((check) => [check.name, check.status]))

describe("check server against our own server", () => {
  it.scopedLive("2019 dialect, with --map: every check passes, the dialect guessed from the first refusal", () =>
    Effect.gen(function*() {
      const server = yield* realServer(["maps/main.txt", "3"])
      const report = yield* run(server.port, { map: mainMap })
      expect(report.checks.filter((check) => check.status !== "pass")).toEqual([])
      expect(report.checks).toHaveLength(19)
      expect(report.about[0]).toBe(`dialect: 2019 (guessed: it answered "NO unknown keystroke")`)
      expect(resultOf(report, "visibility").notes[0]).toMatch(/^\d{3,} player views held against the spec's rule$/)
    }), 120_000)

  it.scopedLive("2021 dialect given, with --map: every check passes, views judged by the 2021 rule", () =>
    Effect.gen(function*() {
      const server = yield* realServer(["maps/main.txt", "4", "--compat", "cs50-2021"])
      const report = yield* run(server.port, { map: mainMap, dialect: "cs50-2021" })
      expect(report.checks.filter((check) => check.status !== "pass")).toEqual([])
      expect(resultOf(report, "visibility").notes[0]).toMatch(/held against the 2021 rule/)
    }), 120_000)

  it.scopedLive("without --map, the checks that need it are skipped and the rest pass", () =>
    Effect.gen(function*() {
      const server = yield* realServer(["maps/main.txt", "5", "--compat", "cs50-2021"])
      const report = yield* run(server.port)
      expect(statuses(report)).toMatchObject({ "spectator-view": "skip", visibility: "skip", "game-over": "pass", "pile-count": "pass" })
      expect(report.checks.filter((check) => check.status === "fail")).toEqual([])
      expect(report.about[0]).toMatch(/^dialect: 2021 \(guessed: it answered "ERROR unknown keystroke"\)$/)
    }), 120_000)
})

/** DISPLAY positions of `@`, per client, to find a player moved by someone else. */
const selfAt = (display: string) => display.indexOf("@")

describe("check server against broken servers: each bug fails its check", () => {
  it.scopedLive("join-spectator: no GOLD for a new client", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("join-spectator", { down: (text, { fromServer }) => (fromServer.length <= 3 && text.startsWith("GOLD") ? undefined : text) })
      expect(failures[0]).toMatchObject({ what: "no GOLD came to the new spectator", sent: `"SPECTATE"`, spec: { line: "373-375" } })
      expect(failures[0]!.got).toMatch(/^"GRID 21 79", "DISPLAY\\n/)
    }))

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
    }))

  it.scopedLive("unknown-keys: an unknown key answered with QUIT", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("unknown-keys", { down: (text) => text.replace(/^NO unknown keystroke$/, "QUIT unknown keystroke") })
      expect(failures[0]).toMatchObject({ what: "the unknown key 'z' ended the player's game", sent: `"KEY z"`, got: `"QUIT unknown keystroke"`, spec: { line: "424-429" } })
    }))

  it.scopedLive("bad-messages: a server that stops answering after an empty datagram", () =>
    Effect.gen(function*() {
      let dead = false
      const failures = yield* failsWith("bad-messages", { answer: (text) => ((dead ||= text === "") ? [] : undefined) })
      expect(failures.at(-1)).toMatchObject({ what: "after these datagrams the server no longer answers", sent: `"SPECTATE"`, got: "nothing", spec: { line: "66" } })
    }))

  it.scopedLive("move-keys: capitals that move one step only", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("move-keys", { up: (text) => text.replace(/^KEY ([HJKLYUBN])$/, (_, key: string) => `KEY ${key.toLowerCase()}`) })
      expect(failures[0]!.what).toMatch(/^KEY [HJKLYUBN] from row \d+ col \d+ should take the player to row \d+ col \d+.*; its DISPLAY shows it at row \d+ col \d+ \(and \d+ more like it\)$/)
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
    }))

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
    }))

  it.scopedLive("spectator-replacement: the old spectator is never told to quit", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("spectator-replacement", { down: (text) => (text.startsWith("QUIT You have been replaced") ? undefined : text) })
      expect(failures[0]).toMatchObject({ what: "the spectator it replaced was not told to QUIT", spec: { line: "369-371" } })
    }))

  it.scopedLive("quit: Q not answered", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("quit", { down: (text) => (text === "QUIT Thanks for playing!" ? undefined : text) })
      expect(failures[0]).toMatchObject({ what: "a player's Q was not answered with QUIT", sent: `"KEY Q"`, spec: { line: "412-414" } })
    }))

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
        "the purses in the summary add up to 251, not 250"
      ]))
    }), 60_000)

  it.scopedLive("server-exit: still taking spectators after the game over", () =>
    Effect.gen(function*() {
      let over = false
      const failures = yield* failsWith("server-exit", {
        down: (text) => ((over ||= text.startsWith("GAMEOVER")), text),
        answer: (text) => (over && text === "SPECTATE" ? ["GRID 21 79"] : undefined)
      }, { checkMs: 20_000 })
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
    }))

  it.scopedLive("message-form: a message of an unknown type", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("message-form", { down: (text) => (text.startsWith("OK") ? [text, "HELLO there"] : text) })
      expect(failures[0]).toMatchObject({ got: `"HELLO there"`, spec: { line: "323-325" } })
    }))

  it.scopedLive("gold-totals: a game that starts with 240 nuggets, and a purse that grows by more than was found", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("gold-totals", {
        down: (text) => text.replace(/^GOLD 0 0 250$/, "GOLD 0 0 240").replace(/^GOLD (\d+) (\d+) (\d+)$/, (all, n: string, p: string, r: string) => (n === "0" ? all : `GOLD ${n} ${Number(p) + 1} ${r}`))
      })
      expect(failures.map((failure) => failure.what)).toEqual(expect.arrayContaining([
        "the first GOLD said 240 nuggets are left, not 250 (was the server fresh?)",
        expect.stringMatching(/^the purse went from \d+ to \d+, but n=\d+/)
      ]))
    }), 60_000)

  it.scopedLive("pile-count: no gold in sight", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("pile-count", { down: (text) => (text.startsWith("DISPLAY") ? text.replaceAll("*", ".") : text) })
      expect(failures[0]).toMatchObject({ what: "the spectator's first view shows 0 piles of gold, not 10 to 30", spec: { line: "61" } })
    }))

  it.scopedLive("spectator-view: a wall shown wrong to the spectator", () =>
    Effect.gen(function*() {
      const failures = yield* failsWith("spectator-view", { down: (text) => (text.startsWith("DISPLAY") && !text.includes("@") ? text.replace("+", "-") : text) }, { map: mainMap })
      expect(failures[0]).toMatchObject({ what: "row 0 col 2: the map has '+', the spectator is shown '-' (and 2 more like it)", spec: { line: "30" } })
    }))

  it.scopedLive("visibility: a server that sees by the 2021 rule but speaks the 2019 dialect", () =>
    Effect.gen(function*() {
      const { port } = yield* brokenServer({ rules: cs50Rules, seed: 2 })
      const report = yield* run(port, { only: "visibility", map: mainMap })
      const result = resultOf(report, "visibility")
      expect(result.status).toBe("fail")
      expect(result.failures[0]!.what).toMatch(/^player [A-Z] at row \d+ col \d+ is shown what the rule does not give: row \d+ col \d+: expected '#', got ' '.* \(\d+ of \d+ views differ\)/)
      expect(result.failures[0]).toMatchObject({ spec: { line: "232-237" } })
    }), 60_000)
})

describe("check server against servers that are down, silent, flooding or babbling: a verdict, never a hang", () => {
  it.scopedLive("nothing listening: the port is closed, and the rest is not run", () =>
    Effect.gen(function*() {
      const socket = dgram.createSocket("udp4")
      yield* Effect.async<void>((resume) => void socket.bind(0, "127.0.0.1", () => resume(Effect.void)))
      const port = socket.address().port
      yield* Effect.async<void>((resume) => void socket.close(() => resume(Effect.void)))
      const report = yield* run(port)
      expect(resultOf(report, "join-spectator").failures[0]).toMatchObject({ what: "the server's port is closed: nothing listens there", got: "ICMP port unreachable" })
      expect(resultOf(report, "game-over").failures[0]!.what).toBe("not run: the server never answered")
      expect(report.checks.filter((check) => check.status === "pass").map((check) => check.name)).toEqual([])
    }))

  it.scopedLive("a server that never answers: the first check says so, and the rest are not run", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer(() => undefined)
      const started = Date.now()
      const report = yield* run(server.port, { answerMs: 300 })
      expect(resultOf(report, "join-spectator").failures[0]).toMatchObject({ what: "the server did not answer SPECTATE", got: "nothing within 300 ms" })
      expect(resultOf(report, "join-player").failures[0]!.what).toBe("not run: the server never answered")
      expect(report.checks.every((check) => check.status !== "pass")).toBe(true)
      expect(Date.now() - started).toBeLessThan(3000)
    }))

  it.scopedLive("a server that lets the spectator in and then hangs: the whole run ends at its deadline", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer((text, reply) => {
        if (text === "SPECTATE") reply("GRID 1 3", "GOLD 0 0 250", "DISPLAY\n.*.\n")
      })
      const started = Date.now()
      const report = yield* run(server.port, { answerMs: 300, checkMs: 2000, totalMs: 1500 })
      expect(resultOf(report, "join-spectator").status).toBe("pass")
      expect(resultOf(report, "join-player").failures[0]).toMatchObject({ what: "the server did not answer PLAY", got: "nothing within 300 ms" })
      expect(resultOf(report, "game-over").failures[0]!.what).toBe("not run: the whole check's deadline (1.5 s) passed")
      expect(Date.now() - started).toBeLessThan(4000)
    }))

  it.scopedLive("a server that floods garbage: every check fails, within the whole run's deadline", () =>
    Effect.gen(function*() {
      const server = yield* scriptedServer((_text, reply) => {
        for (let i = 0; i < 200; i++) reply(Uint8Array.from([0xde, 0xad, i]))
      })
      const started = Date.now()
      const report = yield* run(server.port, { answerMs: 300, checkMs: 1500, totalMs: 8000 })
      expect(Date.now() - started).toBeLessThan(15_000)
      expect(resultOf(report, "join-spectator").failures.map((failure) => failure.what)).toContain("no GRID came to the new spectator")
      expect(resultOf(report, "message-form").failures[0]).toMatchObject({ got: `"\\xde\\xad\\x00"` })
      expect(report.checks.filter((check) => check.status === "pass")).toEqual([])
    }), 30_000)
})
