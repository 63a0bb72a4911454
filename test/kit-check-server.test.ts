import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import * as dgram from "node:dgram"
import { clientChecks, clientRunOrder } from "../src/kit/check-client/check-client.js"
import { serverChecks, serverRunOrder } from "../src/kit/check-server/check-server.js"
import { type Check, runChecks, type Step, stop } from "../src/kit/conformance/check.js"
import { Requirements } from "../src/kit/conformance/requirements.js"
import { realServer } from "./client/tmux.js"
import { mainMap, outcomes, resultOf, run } from "./kit/checkServer.js"
import { scriptedServer } from "./kit/scripted.js"

/**
 * `check server` against our own server (every check passes) and against servers that are
 * down, silent, flooding or babbling; and the runner both checkers share, on checks made up
 * for it, its deadlines driven by the test clock. The servers broken on purpose, one bug
 * each, are in kit-check-server-broken.test.ts and kit-check-server-truth.test.ts; our server in
 * the 2021 dialect, started by the checker, in kit-check-server-started.test.ts. (How long
 * the verdicts take is in `npm run bench`.)
 */

describe.concurrent("each side by side: a server, one check server run each", () => {
  describe.concurrent("check server against our own server", () => {
    it.scopedLive("2019 dialect, with --map: every check passes, the dialect guessed from the first refusal", () =>
      Effect.gen(function*() {
        const server = yield* realServer(["maps/main.txt", "3"])
        const report = yield* run(server.port, { map: mainMap })
        expect(report.checks.filter((check) => check.status !== "pass")).toEqual([])
        expect(report.checks).toHaveLength(22)
        expect(report.about[0]).toBe(`dialect: 2019 (guessed: it answered "NO unknown keystroke")`)
        expect(resultOf(report, "visibility").notes[0]).toMatch(/^\d{3,} player views held against the spec's rule \(sight through room and passage spots\), the dialect's$/)
      }), 120_000)
  })


  describe.concurrent("check server against servers that are down, silent, flooding or babbling: a verdict, never a hang", () => {
    it.scopedLive("nothing listening: the port is closed, and the rest is not run", () =>
      Effect.gen(function*() {
        const socket = dgram.createSocket("udp4")
        yield* Effect.async<void>((resume) => void socket.bind(0, "127.0.0.1", () => resume(Effect.void)))
        const port = socket.address().port
        yield* Effect.async<void>((resume) => void socket.close(() => resume(Effect.void)))
        const report = yield* run(port)
        expect(resultOf(report, "join-spectator").failures[0]).toMatchObject({ what: "the server's port is closed: nothing listens there", got: "ICMP port unreachable" })
        expect(resultOf(report, "game-over")).toMatchObject({ status: "not run", notRun: "the server never answered (see join-spectator)", failures: [] })
        // One failure, at its cause: nothing else is judged, nor counted as failed.
        expect(report.checks.filter((check) => check.status !== "not run").map((check) => check.name)).toEqual(["join-spectator"])
      }))

    it.scopedLive("a server that never answers: the first check says so, and the rest are not run", () =>
      Effect.gen(function*() {
        const server = yield* scriptedServer(() => undefined)
        const report = yield* run(server.port, { answerMs: 300 })
        expect(resultOf(report, "join-spectator").failures[0]).toMatchObject({ what: "the server did not answer SPECTATE", got: "nothing within 300 ms" })
        expect(resultOf(report, "join-player")).toMatchObject({ status: "not run", notRun: "the server never answered (see join-spectator)" })
        // No other check waited for an answer, or judged what came (nothing): none is counted as failed.
        const notRun = report.checks.filter((check) => check.status === "not run")
        expect(notRun.map((check) => check.name)).toEqual(report.checks.map((check) => check.name).filter((name) => name !== "join-spectator"))
        expect(new Set(notRun.map((check) => check.notRun))).toEqual(new Set(["the server never answered (see join-spectator)", "it needs --map (the map the server was started with)"]))
      }))

    it.scopedLive("a server that lets the spectator in and then hangs: the whole run ends at its deadline", () =>
      Effect.gen(function*() {
        const server = yield* scriptedServer((text, reply) => {
          if (text === "SPECTATE") reply("GRID 1 3", "GOLD 0 0 250", "DISPLAY\n.*.\n")
        })
        // The answer's time as the command gives it: the spectator's answer must come within it.
        const report = yield* run(server.port, { checkMs: 10_000, totalMs: 5000 })
        expect(resultOf(report, "join-spectator").status, outcomes(report)).toBe("pass")
        expect(resultOf(report, "join-player").failures[0]).toMatchObject({ what: "the server did not answer PLAY", got: "nothing within 2000 ms" })
        expect(resultOf(report, "game-over")).toMatchObject({ status: "not run", notRun: "the whole check's deadline (5 s) passed" })
      }))

    it.scopedLive("a server that floods garbage: no check passes, within the whole run's deadline", () =>
      Effect.gen(function*() {
        const server = yield* scriptedServer((_text, reply) => {
          for (let i = 0; i < 200; i++) reply(Uint8Array.from([0xde, 0xad, i]))
        })
        // A check has its usual time, and the garbage no GRID among it for 300 ms.
        const report = yield* run(server.port, { answerMs: 300, totalMs: 20_000 })
        expect(resultOf(report, "join-spectator").failures.map((failure) => failure.what), outcomes(report)).toContain("no GRID came to the new spectator")
        expect(resultOf(report, "message-form").failures[0]).toMatchObject({ got: `"\\xde\\xad\\x00"` })
        expect(report.checks.filter((check) => check.status === "pass")).toEqual([])
      }), 30_000)
  })
})

/** Checks made up for the runner's tests: `a` gives a number to `b`, which builds on it. */
interface Gives {
  readonly a: number
  readonly b: void
  readonly c: void
}
type Made<Name extends keyof Gives, Needs extends keyof Gives = never> = Check<Gives, { readonly log: Array<string> }, Name, Needs, never>

const runMade = (
  checks: { readonly a: Made<"a">; readonly b: Made<"b", "a">; readonly c: Made<"c"> },
  options: { readonly only?: keyof Gives; readonly totalMs?: number; readonly order?: ReadonlyArray<keyof Gives> } = {}
) =>
  Effect.gen(function*() {
    const log: Array<string> = []
    const results = yield* runChecks<Gives, { readonly log: Array<string> }, never, never, Made<keyof Gives, keyof Gives>>({
      checks,
      order: options.order ?? ["a", "b", "c"],
      only: options.only,
      tools: () => ({ log }),
      totalMs: options.totalMs ?? 60_000,
      budgetMs: () => 1000,
      timedOut: (ms) => ({ what: `no verdict within ${ms} ms`, spec: Requirements.reactToMessages }),
      failureOf: (error) => Effect.die(error)
    })
    return {
      log,
      results: results.map((result) => ({
        name: result.name,
        status: result.status,
        failures: result.failures.map((failure) => failure.what),
        ...(result.notRun === undefined ? {} : { notRun: result.notRun }),
        notes: result.notes
      }))
    }
  }).pipe(Effect.scoped)

const made = <Name extends keyof Gives, Needs extends keyof Gives = never>(
  name: Name,
  needs: ReadonlyArray<Needs>,
  run: Made<Name, Needs>["run"]
): Made<Name, Needs> => ({ name, title: `check ${name}`, needs, run })

describe("the runner both checkers share", () => {
  it("each checker's run order holds each of its checks once, after what it builds on, and a check's preparation before it", () => {
    const holds = (checks: Record<string, { readonly needs: ReadonlyArray<string>; readonly prepare?: unknown }>, order: ReadonlyArray<Step<string>>) => {
      const runs = order.flatMap((step) => (typeof step === "string" ? [step] : []))
      const prepares = order.flatMap((step) => (typeof step === "string" ? [] : [step.prepare]))
      expect([...runs].sort()).toEqual(Object.keys(checks).sort())
      for (const [name, check] of Object.entries(checks)) {
        for (const need of check.needs) expect(runs.indexOf(need), `${name} needs ${need}`).toBeLessThan(runs.indexOf(name))
        expect(prepares.includes(name), `${name}'s preparation`).toBe(check.prepare !== undefined)
        if (check.prepare) expect(order.findIndex((step) => typeof step !== "string" && step.prepare === name)).toBeLessThan(order.indexOf(name))
      }
    }
    holds(serverChecks, serverRunOrder)
    holds(clientChecks, clientRunOrder)
  })

  it.effect("a check that hangs is cut at its deadline, and once the whole run's has passed the rest are not run", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(runMade({
        a: made("a", [], () => Effect.never),
        b: made("b", ["a"], () => Effect.never),
        c: made("c", [], ({ log }) => Effect.sync(() => void log.push("c ran")))
      }, { totalMs: 1500 }))
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("500 millis")
      const { log, results } = yield* Fiber.join(fiber)
      expect(results.map((result) => [result.status, result.failures, result.notRun])).toEqual([
        ["fail", ["no verdict within 1000 ms"], undefined],
        ["fail", ["no verdict within 500 ms"], undefined],
        ["not run", [], "the whole check's deadline (1.5 s) passed"]
      ])
      expect(log).toEqual([])
    }))

  it.effect("with --only, a check runs after what it builds on, gets what that gave, and alone is reported", () =>
    Effect.gen(function*() {
      const { log, results } = yield* runMade({
        a: made("a", [], ({ log }) => Effect.sync(() => (log.push("a"), 42))),
        b: made("b", ["a"], (context) => Effect.map(context.need("a"), (given) => void (context.log.push("b"), context.note(`a gave ${given}`)))),
        c: made("c", [], ({ log }) => Effect.sync(() => void log.push("c")))
      }, { only: "b" })
      expect(log).toEqual(["a", "b"])
      expect(results).toEqual([{ name: "b", status: "pass", failures: [], notes: ["a gave 42"] }])
    }))

  it.effect("a check that needs what a failed check would have given is not run, and says which", () =>
    Effect.gen(function*() {
      const { results } = yield* runMade({
        a: made("a", [], () => stop({ what: "a broke", spec: Requirements.ok })),
        b: made("b", ["a"], (context) => Effect.asVoid(context.need("a"))),
        c: made("c", [], () => Effect.void)
      })
      expect(results.map((result) => [result.name, result.status, result.failures, result.notRun])).toEqual([
        ["a", "fail", ["a broke"], undefined],
        ["b", "not run", [], "it builds on a, which failed"],
        ["c", "pass", [], undefined]
      ])
    }))

  it.effect("what a check gives is released once no check still to run builds on it", () =>
    Effect.gen(function*() {
      const { log } = yield* runMade({
        a: made("a", [], ({ log }) => Effect.acquireRelease(Effect.sync(() => (log.push("a acquired"), 1)), () => Effect.sync(() => void log.push("a released")))),
        b: made("b", ["a"], (context) => Effect.map(context.need("a"), () => void context.log.push("b used it"))),
        c: made("c", [], ({ log }) => Effect.sync(() => void log.push("c ran")))
      })
      expect(log).toEqual(["a acquired", "b used it", "a released", "c ran"])
    }))
})
