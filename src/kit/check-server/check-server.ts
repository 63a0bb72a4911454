import { Effect, Either } from "effect"
import { resolveHost } from "../../net/resolve.js"
import { Udp } from "../../net/udp.js"
import type { GameMap } from "../../core/map.js"
import type { Dialect } from "../../protocol/dialect.js"
import type { CheckResult, Failure, Report } from "../conformance/report.js"
import { endSteps } from "./end.js"
import { garbageStep, joinSteps } from "./join.js"
import { judgeSteps } from "./judge.js"
import { playSteps } from "./play.js"
import { Session, Stop } from "./session.js"
import { SightJudge } from "./sight-judge.js"
import { Spec } from "../conformance/requirements.js"
import type { CheckInfo, Step } from "./step.js"

/** `nuggets check server`: plays against a live server over UDP and reports how well it follows the spec. */

export const serverChecks: ReadonlyArray<CheckInfo> = [
  { name: "join-spectator", title: "SPECTATE is answered with GRID, then GOLD 0 0 r, and a DISPLAY" },
  { name: "join-player", title: "PLAY is answered with OK L, then GRID, GOLD 0 0 r and a DISPLAY" },
  { name: "unknown-keys", title: "unknown keys, and move keys from the spectator, move nothing; the answer is NO (ERROR in 2021) or none" },
  { name: "bad-messages", title: "garbage, empty, malformed and huge datagrams are refused or ignored, and the server goes on" },
  { name: "move-keys", title: "each move key moves one step where possible, each capital runs as far as possible, and all clients see it" },
  { name: "gold-to-all", title: "gold collected is told with GOLD to the collector (n, p, r) and to everyone else (r)" },
  { name: "swap", title: "moving onto another player swaps the two" },
  { name: "spectator-replacement", title: "a new spectator replaces the old one, which gets QUIT and nothing more" },
  { name: "quit", title: "Q is answered with QUIT, and the player leaves the map for good" },
  { name: "player-limit", title: "26 players in all, those who quit included; the next is answered NO (QUIT in 2021)" },
  { name: "game-over", title: "the last nugget ends the game: every client gets the summary, one line per player, 250 nuggets in all" },
  { name: "server-exit", title: "after the game over the server exits" },
  { name: "names", title: "a name of 60 characters with a control character comes back cut to 50 and printable" },
  { name: "display-framing", title: "every DISPLAY has GRID's rows and columns, each row ended by a newline, in map and occupant characters" },
  { name: "message-form", title: "every message is ASCII, of a known type, and well formed" },
  { name: "gold-totals", title: "GOLD adds up: 250 nuggets at first, each purse grows by what was collected, nuggets left never grow" },
  { name: "pile-count", title: "10 to 30 piles of gold at the start" },
  { name: "spectator-view", title: "the spectator sees the whole map, gold on room spots and players on spots", needsMap: true },
  { name: "visibility", title: "each player's DISPLAY is what the visibility rule gives, from where the spectator sees everyone", needsMap: true }
]

/** In order; the garbage late, for a server may not survive it, but before the game is played out. */
const allSteps: ReadonlyArray<Step> = [...joinSteps, ...playSteps, endSteps[0]!, garbageStep, ...endSteps.slice(1), ...judgeSteps]

/** Steps that play a whole game, or fill it: given longer than the deadline per check. */
const longSteps = new Set(["game-over", "player-limit"])
const longStepMs = 120_000

export interface CheckServerOptions {
  readonly host: string
  readonly port: number
  readonly dialect: Dialect | undefined
  readonly map: { readonly file: string; readonly map: GameMap } | undefined
  readonly only: string | undefined
  /** The deadline per check. */
  readonly checkMs: number
  /** The deadline for the whole run. */
  readonly totalMs: number
  /** How long to wait for each answer. */
  readonly answerMs: number
}

/** The steps `--only` needs, in their order: the check's own and, before them, what they build on. */
export const stepsFor = (only: string | undefined): ReadonlyArray<Step> => {
  if (only === undefined) return allSteps
  const wanted = new Set<string>()
  const add = (step: Step) => {
    if (wanted.has(step.name)) return
    wanted.add(step.name)
    for (const need of step.needs) add(allSteps.find((each) => each.name === need)!)
  }
  for (const step of allSteps) if (step.check === only) add(step)
  return allSteps.filter((step) => wanted.has(step.name))
}

/** Failures that differ only in their numbers and quotes, once, with how many more there were. */
export const alike = (failures: ReadonlyArray<Failure>): ReadonlyArray<Failure> => {
  const kinds = new Map<string, { first: Failure; more: number }>()
  for (const failure of failures) {
    const kind = `${failure.spec.line} ${failure.what.replace(/'[^']*'|"[^"]*"|\b[A-Z]\b|\d+/g, "_")}`
    const seen = kinds.get(kind)
    if (seen) seen.more++
    else kinds.set(kind, { first: failure, more: 0 })
  }
  return [...kinds.values()].map(({ first, more }) => (more === 0 ? first : { ...first, what: `${first.what} (and ${more} more like it)` }))
}

const dialectName = (dialect: Dialect | undefined) => (dialect === "cs50-2021" ? "2021" : dialect === "spec" ? "2019" : "unknown")

export const checkServer = (options: CheckServerOptions): Effect.Effect<Report, never, Udp> =>
  Effect.gen(function*() {
    const target = `nuggets check server ${options.host}:${options.port}`
    const resolved = yield* Effect.either(resolveHost(options.host))
    if (Either.isLeft(resolved)) {
      return { target, about: [], checks: [{ name: "join-spectator", title: "reach the server", status: "fail" as const, notes: [], ms: 0, failures: [{ what: resolved.left.message, spec: Spec.joinAs }] }] }
    }
    const judge = options.map ? new SightJudge(options.map.map) : undefined
    const session = new Session({
      server: { address: resolved.right.address, port: options.port },
      family: resolved.right.family,
      dialect: options.dialect,
      map: options.map?.map,
      answerMs: options.answerMs,
      judge
    }, yield* Effect.scope, yield* Udp)
    const results = new Map<string, { failures: Array<Failure>; notes: Array<string>; ms: number; ran: boolean }>()
    const resultOf = (check: string) => {
      let result = results.get(check)
      if (!result) results.set(check, result = { failures: [], notes: [], ms: 0, ran: false })
      return result
    }
    const started = performance.now()
    /** The step during which the server went away, if it did before its game was over. */
    let gone: string | undefined
    for (const step of stepsFor(options.only)) {
      const info = serverChecks.find((check) => check.name === step.check)!
      const result = resultOf(step.check)
      if (info.needsMap && !options.map) continue
      result.ran = true
      const left = options.totalMs - (performance.now() - started)
      if (left <= 0) {
        result.failures.push({ what: `not run: the whole check's deadline (${options.totalMs / 1000} s) passed`, spec: Spec.reactToMessages })
        continue
      }
      const judging = judgeSteps.includes(step)
      if (session.unreachable && !judging) {
        result.failures.push({ what: "not run: the server never answered", spec: Spec.reactToMessages })
        continue
      }
      if (gone !== undefined && !judging && step.name !== "server-exit") {
        result.failures.push({ what: `not run: the server is gone (its port was found closed during ${gone}); run again with --only NAME on a fresh server`, spec: Spec.reactToMessages })
        continue
      }
      const budget = Math.min(left, longSteps.has(step.name) ? Math.max(longStepMs, options.checkMs) : options.checkMs)
      const context = {
        session,
        fail: (failure: Failure) => void result.failures.push(failure),
        note: (text: string) => void result.notes.push(text),
        failures: () => result.failures.length
      }
      const stepStarted = performance.now()
      const outcome = yield* step.run(context).pipe(
        Effect.timeoutFail({ duration: budget, onTimeout: () => new Stop({ what: `no verdict within ${Math.round(budget / 1000)} s: the server stopped answering, or answered too slowly`, spec: Spec.reactToMessages }) }),
        Effect.either
      )
      result.ms += Math.round(performance.now() - stepStarted)
      if (gone === undefined && step.name !== "game-over" && session.clients.some((client) => client.probe.portClosed())) gone = step.name
      if (Either.isLeft(outcome)) {
        const error = outcome.left
        result.failures.push(error instanceof Stop ? error.failure : { what: `the checker could not open a socket: ${error.message}`, spec: Spec.joinAs })
      }
    }
    const about = [
      `dialect: ${dialectName(session.dialect)} (${session.dialect === undefined ? "no message told; judged as 2019" : session.dialectWhy})`,
      options.map ? `map: ${options.map.file} (${options.map.map.rows}x${options.map.map.cols})` : "no --map: the checks that need the map are skipped"
    ]
    const checks: Array<CheckResult> = serverChecks
      .filter((check) => options.only === undefined || check.name === options.only)
      .map((check) => {
        const result = resultOf(check.name)
        if (check.needsMap && !options.map) return { name: check.name, title: check.title, status: "skip", notes: ["needs --map"], failures: [], ms: 0 }
        return { name: check.name, title: check.title, status: result.failures.length > 0 ? "fail" : "pass", notes: result.notes, failures: alike(result.failures), ms: result.ms }
      })
    return { target, about, checks }
  }).pipe(Effect.scoped)
