import type { Failure } from "./failure.js"
import { citation } from "./requirements.js"

/**
 * The report both checkers give: one entry per check, each failure with what was sent, what
 * came back and the line of the spec it breaks; `N passed, N failed` at the end.
 */

export type Status = "pass" | "fail" | "skip"

export interface CheckResult {
  readonly name: string
  readonly title: string
  readonly status: Status
  /** Why a check was skipped, or what a passing check saw worth knowing. */
  readonly notes: ReadonlyArray<string>
  readonly failures: ReadonlyArray<Failure>
  readonly ms: number
}

export interface ConformanceReport {
  /** "check server 127.0.0.1:5000", "check client ./player". */
  readonly target: string
  /** Lines about the run as a whole: the dialect and how it was chosen, the map. */
  readonly about: ReadonlyArray<string>
  readonly checks: ReadonlyArray<CheckResult>
}

export const counts = (report: ConformanceReport) => ({
  passed: report.checks.filter((check) => check.status === "pass").length,
  failed: report.checks.filter((check) => check.status === "fail").length,
  skipped: report.checks.filter((check) => check.status === "skip").length
})

const paint = { pass: "\x1b[32m", fail: "\x1b[1;31m", skip: "\x1b[33m", dim: "\x1b[2m", off: "\x1b[0m" }

/** The report for people: a line per check, the failures under it, the totals last. */
export const reportText = (report: ConformanceReport, options: { readonly colour: boolean }): string => {
  const colour = (code: string, text: string) => (options.colour ? `${code}${text}${paint.off}` : text)
  const lines = [report.target, ...report.about.map((line) => `  ${line}`), ""]
  for (const check of report.checks) {
    const label = check.status === "pass" ? "PASS" : check.status === "fail" ? "FAIL" : "SKIP"
    const time = check.status === "skip" ? "" : colour(paint.dim, ` (${check.ms} ms)`)
    lines.push(`${colour(paint[check.status], label)} ${check.name}: ${check.title}${time}`)
    for (const note of check.notes) lines.push(`     ${note}`)
    for (const failure of check.failures) {
      lines.push(`     - ${failure.what}`)
      if (failure.sent !== undefined) lines.push(`       sent: ${failure.sent}`)
      if (failure.got !== undefined) lines.push(`       got:  ${failure.got}`)
      lines.push(`       ${citation(failure.spec)}`)
    }
  }
  const { failed, passed, skipped } = counts(report)
  lines.push("")
  if (skipped > 0) lines.push(`${skipped} skipped`)
  lines.push(`${passed} passed, ${failed} failed`)
  return lines.join("\n")
}

/** The report for graders: the same, as one JSON document. */
export const reportJson = (report: ConformanceReport): string =>
  JSON.stringify({ ...report, ...counts(report) }, null, 2)
