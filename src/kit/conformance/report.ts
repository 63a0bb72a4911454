import type { Failure } from "./failure.js"
import { citation } from "./requirements.js"

/**
 * The report both checkers give: one entry per check, each failure (and warning) with what
 * was sent, what came back and the line of the spec it breaks; `N passed, N failed, N
 * warned, N not run` at the end. Also as JSON and as JUnit XML, for graders and CI.
 */

/**
 * pass; fail (it breaks the spec); warn (it differs only from the spec's examples or its
 * "should"); not run (it could not be judged, saying why: blocked by a check it builds on,
 * no --map, the server gone).
 */
export type Status = "pass" | "fail" | "warn" | "not run"

export interface CheckResult {
  readonly name: string
  readonly title: string
  readonly status: Status
  /** Why it was not run. */
  readonly notRun?: string
  /** What a check saw worth knowing, whatever its verdict. */
  readonly notes: ReadonlyArray<string>
  readonly failures: ReadonlyArray<Failure>
  readonly warnings: ReadonlyArray<Failure>
  readonly ms: number
}

export interface ConformanceReport {
  /** "check server 127.0.0.1:5000", "check client ./player". */
  readonly target: string
  /** Lines about the run as a whole: the dialect and how it was chosen, the map. */
  readonly about: ReadonlyArray<string>
  readonly checks: ReadonlyArray<CheckResult>
}

export const counts = (report: ConformanceReport) => {
  const of = (status: Status) => report.checks.filter((check) => check.status === status).length
  return { passed: of("pass"), failed: of("fail"), warned: of("warn"), notRun: of("not run") }
}

/** `N passed, N failed, N warned, N not run`. */
export const countsLine = (report: ConformanceReport): string => {
  const { failed, notRun, passed, warned } = counts(report)
  return `${passed} passed, ${failed} failed, ${warned} warned, ${notRun} not run`
}

const labels: Readonly<Record<Status, string>> = { pass: "PASS", fail: "FAIL", warn: "WARN", "not run": "NOT RUN" }
const paint = { pass: "\x1b[32m", fail: "\x1b[1;31m", warn: "\x1b[33m", "not run": "\x1b[2m", dim: "\x1b[2m", off: "\x1b[0m" }

const findingLines = (finding: Failure, bullet: string): Array<string> => [
  `     ${bullet} ${finding.what}`,
  ...(finding.sent === undefined ? [] : [`       sent: ${finding.sent}`]),
  ...(finding.got === undefined ? [] : [`       got:  ${finding.got}`]),
  ...(finding.detail ?? []).map((line) => `         ${line}`),
  `       ${citation(finding.spec)}`
]

/** The report for people: a line per check, its failures and warnings under it, the totals last. */
export const reportText = (report: ConformanceReport, options: { readonly colour: boolean }): string => {
  const colour = (code: string, text: string) => (options.colour ? `${code}${text}${paint.off}` : text)
  const lines = [report.target, ...report.about.map((line) => `  ${line}`), ""]
  for (const check of report.checks) {
    const time = check.status === "not run" ? "" : colour(paint.dim, ` (${check.ms} ms)`)
    lines.push(`${colour(paint[check.status], labels[check.status])} ${check.name}: ${check.title}${time}`)
    if (check.notRun !== undefined) lines.push(`     not run: ${check.notRun}`)
    for (const note of check.notes) lines.push(`     ${note}`)
    for (const failure of check.failures) lines.push(...findingLines(failure, "-"))
    for (const warning of check.warnings) lines.push(...findingLines(warning, "warning:"))
  }
  lines.push("", countsLine(report))
  return lines.join("\n")
}

/** The report for graders: the same, as one JSON document. */
export const reportJson = (report: ConformanceReport): string => JSON.stringify({ ...report, ...counts(report) }, null, 2)

const xml = (text: string) =>
  text.replace(/[&<>"]/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[char]!)
    // XML 1.0 has no way to write most control characters, even escaped.
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`)

const findingText = (finding: Failure) => findingLines(finding, "-").map((line) => line.trim()).join("\n")

/**
 * The report as JUnit XML, which CI systems read: one test case per check; a failure is a
 * `failure`, a check not run is `skipped` with why, and warnings go to the case's output.
 */
export const reportJunit = (report: ConformanceReport, suite: string): string => {
  const { failed, notRun } = counts(report)
  const seconds = (ms: number) => (ms / 1000).toFixed(3)
  const total = report.checks.reduce((sum, check) => sum + check.ms, 0)
  const cases = report.checks.map((check) => {
    const open = `    <testcase classname="${xml(suite)}" name="${xml(check.name)}" time="${seconds(check.ms)}">`
    const inner: Array<string> = []
    if (check.status === "fail") {
      const message = check.failures.map((failure) => failure.what).join("; ")
      inner.push(`      <failure message="${xml(message)}" type="nonconformance">${xml(check.failures.map(findingText).join("\n\n"))}</failure>`)
    }
    if (check.status === "not run") inner.push(`      <skipped message="${xml(check.notRun ?? "")}"/>`)
    const output = [check.title, ...check.notes, ...check.warnings.map((warning) => `warning: ${findingText(warning)}`)]
    inner.push(`      <system-out>${xml(output.join("\n"))}</system-out>`)
    return [open, ...inner, "    </testcase>"].join("\n")
  })
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${xml(report.target)}" tests="${report.checks.length}" failures="${failed}" skipped="${notRun}" time="${seconds(total)}">`,
    `  <testsuite name="${xml(suite)}" tests="${report.checks.length}" failures="${failed}" errors="0" skipped="${notRun}" time="${seconds(total)}">`,
    `    <properties>${report.about.map((line) => `<property name="about" value="${xml(line)}"/>`).join("")}</properties>`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    ""
  ].join("\n")
}
