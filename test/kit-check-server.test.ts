import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as dgram from "node:dgram"
import { realServer } from "./client/tmux.js"
import { mainMap, resultOf, run, statuses } from "./kit/checkServer.js"
import { scriptedServer } from "./kit/scripted.js"

/**
 * `check server` against our own server (every check passes) and against servers that are
 * down, silent, flooding or babbling. The servers broken on purpose, one bug each, are in
 * kit-check-server-broken.test.ts.
 */

describe.concurrent("check server against our own server", () => {
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
