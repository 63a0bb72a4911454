/** What the tests of `check server` share: running it, and reading its report. */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { type CheckServerOptions, checkServer } from "../../src/kit/check-server/check-server.js"
import type { ServerCheckName } from "../../src/kit/check-server/server-check.js"
import type { ConformanceReport } from "../../src/kit/conformance/report.js"
import { nodeUdpLayer } from "../../src/net/nodeUdp.js"
import { loadMap } from "../support.js"
import { type BrokenServerOptions, type Bugs, brokenServer } from "./broken.js"

export const mainMap = { file: "maps/main.txt", map: loadMap("main.txt") }

export const run = (port: number, options: Partial<CheckServerOptions> = {}) =>
  checkServer({
    target: { _tag: "Address", host: "127.0.0.1", port },
    dialect: undefined,
    map: undefined,
    only: undefined,
    checkMs: 10_000,
    totalMs: 180_000,
    answerMs: 2000,
    ...options
  }).pipe(Effect.provide(nodeUdpLayer))

export const resultOf = (report: ConformanceReport, name: string) => {
  const result = report.checks.find((check) => check.name === name)
  if (!result) throw new Error(`no check ${name} in ${report.checks.map((check) => check.name).join(", ")}`)
  return result
}

/** The one check `only` fails against a server with `bugs`, and says why. */
export const failsWith = (only: ServerCheckName, bugs: Bugs, options: Partial<CheckServerOptions> = {}, server: Omit<BrokenServerOptions, "bugs"> = {}) =>
  Effect.gen(function*() {
    const { port } = yield* brokenServer({ ...server, bugs })
    const report = yield* run(port, { only, ...options })
    // With --only, the one check, and any it builds on that failed.
    expect(report.checks.filter((check) => check.name !== only).every((check) => check.status === "fail"), outcomes(report)).toBe(true)
    const result = resultOf(report, only)
    expect(result.status, outcomes(report)).toBe("fail")
    if (process.env.SHOW) console.log(JSON.stringify(result.failures, null, 1))
    return result.failures
  })

/** Each check's status and, for one that did not pass, why: a failing test's message. */
export const outcomes = (report: ConformanceReport) =>
  report.checks.map((check) =>
    `${check.name}: ${check.status}${check.notRun ? ` (${check.notRun})` : ""}${check.failures.map((failure) => `\n  ${failure.what}; got ${failure.got}`).join("")}`
  ).join("\n")

export const statuses = (report: ConformanceReport) => Object.fromEntries(report.checks.map((check) => [check.name, check.status]))
