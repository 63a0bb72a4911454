/** What the tests of `check client` share: running it, against a toy client with bugs or not. */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import { checkClient, type CheckClientOptions } from "../../src/kit/check-client/check-client.js"
import type { ClientCheckName } from "../../src/kit/check-client/client-check.js"
import type { ConformanceReport } from "../../src/kit/conformance/report.js"
import { nodeUdpLayer } from "../../src/net/nodeUdp.js"

export const toy = fileURLToPath(new URL("./toy-client.mjs", import.meta.url))

export const check = (command: ReadonlyArray<string>, options: Partial<CheckClientOptions> = {}) =>
  checkClient({ command, dialect: "2019", answerMs: 1500, only: undefined, checkMs: 60_000, totalMs: 300_000, ...options }).pipe(
    Effect.provide(nodeUdpLayer)
  )

export const failing = (report: ConformanceReport) => report.checks.filter((each) => each.status !== "pass")

/** The failures of the one check `only`, run against the toy client with `bugs`. */
export const failuresWith = (bugs: string, only: ClientCheckName, options: Partial<CheckClientOptions> = {}) =>
  Effect.gen(function*() {
    const report = yield* check([process.execPath, toy, `--bugs=${bugs}`], { only, ...options })
    // With --only, the one check, and any it builds on that failed.
    const result = report.checks.find((each) => each.name === only)!
    expect(report.checks.filter((each) => each !== result).every((each) => each.status === "fail")).toBe(true)
    expect(result.status, JSON.stringify(result)).toBe("fail")
    return result.failures
  })
