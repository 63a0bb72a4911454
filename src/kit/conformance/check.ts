import { Clock, Effect, ExecutionStrategy, Exit, Scope } from "effect"
import { alike, type Failure } from "./failure.js"
import type { CheckResult } from "./report.js"

/**
 * A check, declared once, and the runner both checkers share.
 *
 * Each tool names its checks by the keys of a `Gives` type, which says what each check gives
 * the checks that build on it (a client it let in, the game-over summary, or nothing). The
 * names are thus a literal type: `needs` and `--only` are type-checked. A check gets what it
 * builds on from `need(name)`, never from shared state, and gives back what it found as its
 * value. With `--only NAME`, NAME runs with what it builds on, and is the only one reported,
 * with any of those that failed.
 *
 * A check ends in one of four ways: it passed, it failed (the failures it recorded, or one
 * that stopped it: `Stop`), it warned (only differences from the spec's examples or its
 * "should"), or it was not run, saying why: a check it builds on gave nothing (`Blocked`),
 * the check itself found it could not be judged (`NotRun`), the tool said so before it ran
 * (no --map, the server is gone) or the run's deadline passed. Only a failure is one.
 */

/** A failure that ends the check at once; it gives nothing to the checks that build on it. */
export class Stop {
  readonly _tag = "Stop"
  constructor(readonly failure: Failure) {}
}

export const stop = (failure: Failure) => Effect.fail(new Stop(failure))

/** The check could not go on: `by`, a check it builds on, gave nothing. */
export class Blocked {
  readonly _tag = "Blocked"
  constructor(readonly by: string) {}
}

/** The check cannot be judged, for a reason it found (said in a sentence): it is not run, not failed. */
export class NotRun {
  readonly _tag = "NotRun"
  constructor(readonly why: string) {}
}

export const notRun = (why: string) => Effect.fail(new NotRun(why))

/** What a check records as it runs. */
export interface Recorder {
  /** Records a failure and goes on. */
  readonly fail: (failure: Failure) => void
  /** Records a difference from the spec's examples or its "should": worth saying, not a failure. */
  readonly warn: (failure: Failure) => void
  /** Something worth saying even when the check passes. */
  readonly note: (text: string) => void
  /** How many failures the check has so far. */
  readonly failures: () => number
}

/** What a check's `run` is given, besides its tool's own means (`Tools`). */
export interface CheckContext<Gives, Needs extends keyof Gives> extends Recorder {
  /** What `name`, a check this one builds on, gave; `Blocked` if it gave nothing. */
  readonly need: <K extends Needs>(name: K) => Effect.Effect<Gives[K], Blocked>
}

/**
 * A check. `prepare`, for the few that need it, runs where the run order puts it, earlier
 * than `run` (check server's `names` joins its player before the game is played out); its
 * value is handed to `run`. Methods, so that a list can hold checks of different `Prepared`.
 */
export interface Check<Gives, Tools, Name extends keyof Gives, Needs extends keyof Gives, E, Prepared = never> {
  readonly name: Name
  /** What it holds the implementation to, in a line. */
  readonly title: string
  /** The checks it builds on: they run before it, also with `--only`. */
  readonly needs: ReadonlyArray<Needs>
  prepare?(context: Tools & Recorder): Effect.Effect<Prepared, Stop | NotRun | E, Scope.Scope>
  run(
    context: Tools & CheckContext<Gives, Needs> & { readonly prepared: Prepared | undefined }
  ): Effect.Effect<Gives[Name], Stop | Blocked | NotRun | E, Scope.Scope>
}

/** One entry of a run order: a check's `run`, or its `prepare`. */
export type Step<Name> = Name | { readonly prepare: Name }

/** The checks with `only` and what it builds on (all of them without `only`). */
export const selection = <Name extends string>(
  checks: { readonly [K in Name]: { readonly name: K; readonly needs: ReadonlyArray<Name> } },
  only: Name | undefined
): ReadonlySet<Name> => {
  if (only === undefined) return new Set(Object.values<{ readonly name: Name }>(checks).map((check) => check.name))
  const wanted = new Set<Name>()
  const add = (name: Name) => {
    if (wanted.has(name)) return
    wanted.add(name)
    for (const need of checks[name].needs) add(need)
  }
  add(only)
  return wanted
}

/** What the tool makes of a step that has just ended. */
export interface AfterStep<Name extends string> {
  /** Run the step once more, its findings so far dropped (the server died of something sent before it, and was started afresh). */
  readonly again?: boolean
  /** Its findings dropped, it is not run, for this reason (the server died of something sent before it). */
  readonly notRun?: string
  /** Its findings dropped (what it found after the server died is no finding); `blame` says what happened. */
  readonly drop?: boolean
  /**
   * Failures that belong to checks that ran before (the datagram that killed the server,
   * found only now); with `instead`, what that check found in its last step is dropped (it
   * found it of the server's death).
   */
  readonly blame?: ReadonlyArray<{ readonly check: Name; readonly failure: Failure; readonly instead?: boolean }>
}

export interface Plan<Gives, Tools, E, Fatal, C extends Check<Gives, Tools, keyof Gives & string, keyof Gives & string, E, unknown>> {
  /** Every check, by name, in the order the report lists them. */
  readonly checks: { readonly [K in keyof Gives & string]: C & { readonly name: K } }
  /** The order the checks run in: each check once, after its `prepare` if it has one. */
  readonly order: ReadonlyArray<Step<keyof Gives & string>>
  readonly only: (keyof Gives & string) | undefined
  /** The tool's means for the next step (a tool may swap them between steps: a server started afresh). */
  readonly tools: () => Tools
  /** The deadline for the whole run. */
  readonly totalMs: number
  /** The deadline for one step of `check`. */
  readonly budgetMs: (check: C) => number
  /** Why `check` is not judged at all (it needs --map), if it is not. */
  readonly skipped?: (check: C) => string | undefined
  /** Before each step (its `prepare`, or its `run`): why it is not run now, if it is not; may make the tools anew. */
  readonly before?: (check: C, preparing: boolean) => Effect.Effect<string | undefined, Fatal>
  /** After each step that ran, with its label (`names` or `names, its preparation`). */
  readonly after?: (check: C, label: string, preparing: boolean) => Effect.Effect<AfterStep<keyof Gives & string>, Fatal>
  /** The failure for a step that gave no verdict within `ms`. */
  readonly timedOut: (ms: number) => Failure
  /** A failure of the tool's own (a socket it could not open), or a fatal error that ends the run. */
  readonly failureOf: (error: E) => Effect.Effect<Failure, Fatal>
}

interface Tally {
  readonly failures: Array<Failure>
  readonly warnings: Array<Failure>
  readonly notes: Array<string>
  ms: number
  /** Why it was not run, if it was not. */
  notRun: string | undefined
  /** What it had found before its last step began. */
  before: { failures: number; warnings: number }
  /** Why it did not end well, for the checks that build on it. */
  trouble: "failed" | "not run" | undefined
  /** Its own resources: what it gives lives here until no check still to run needs it. */
  scope: Scope.CloseableScope | undefined
  prepared: unknown
}

/** Runs the checks of `plan`, and gives their results in the report's order (with `only`, just that one). */
export const runChecks = <Gives, Tools, E, Fatal, C extends Check<Gives, Tools, keyof Gives & string, keyof Gives & string, E, unknown>>(
  plan: Plan<Gives, Tools, E, Fatal, C>
): Effect.Effect<ReadonlyArray<CheckResult>, Fatal, Scope.Scope> =>
  Effect.gen(function*() {
    type Name = keyof Gives & string
    const runScope = yield* Effect.scope
    const selected = selection<Name>(plan.checks, plan.only)
    const steps = plan.order.filter((step) => selected.has(typeof step === "string" ? step : step.prepare))
    const tallies = new Map<string, Tally>()
    const tallyOf = (name: Name): Tally => {
      let tally = tallies.get(name)
      if (!tally) {
        tallies.set(name, tally = { failures: [], warnings: [], notes: [], ms: 0, notRun: undefined, before: { failures: 0, warnings: 0 }, trouble: undefined, scope: undefined, prepared: undefined })
      }
      return tally
    }
    const gave: { [K in Name]?: { readonly value: Gives[K] } } = {}
    const keep = <K extends Name>(name: K, value: Gives[K]) => void (gave[name] = { value })
    const need = <K extends Name>(name: K): Effect.Effect<Gives[K], Blocked> => {
      const box = gave[name]
      return box ? Effect.succeed(box.value) : Effect.fail(new Blocked(name))
    }
    const blockedWhy = (by: string) => `it builds on ${by}, which ${tallies.get(by)?.trouble === "not run" ? "was not run" : "failed"}`
    const markNotRun = (tally: Tally, why: string) => {
      tally.notRun ??= why
      tally.trouble ??= "not run"
    }

    const started = yield* Clock.currentTimeMillis
    for (const [index, step] of steps.entries()) {
      const preparing = typeof step !== "string"
      const name = preparing ? step.prepare : step
      const check = plan.checks[name]
      const tally = tallyOf(name)
      if (plan.skipped?.(check) !== undefined || tally.notRun !== undefined) continue
      const recorder = {
        fail: (failure: Failure) => void tally.failures.push(failure),
        warn: (failure: Failure) => void tally.warnings.push(failure),
        note: (text: string) => void tally.notes.push(text),
        failures: () => tally.failures.length
      }
      for (let attempt = 0;; attempt++) {
        const left = plan.totalMs - ((yield* Clock.currentTimeMillis) - started)
        if (left <= 0) {
          markNotRun(tally, `the whole check's deadline (${plan.totalMs / 1000} s) passed`)
          break
        }
        const why = yield* (plan.before?.(check, preparing) ?? Effect.succeed(undefined))
        if (why !== undefined) {
          markNotRun(tally, why)
          break
        }
        const kept = { failures: tally.failures.length, warnings: tally.warnings.length, notes: tally.notes.length, trouble: tally.trouble }
        tally.before = { failures: kept.failures, warnings: kept.warnings }
        const scope = tally.scope ??= yield* Scope.fork(runScope, ExecutionStrategy.sequential)
        const budget = Math.min(left, plan.budgetMs(check))
        const tools = plan.tools()
        const body: Effect.Effect<void, Stop | Blocked | NotRun | E, Scope.Scope> = preparing
          ? (check.prepare?.({ ...tools, ...recorder }) ?? Effect.void).pipe(Effect.map((prepared) => void (tally.prepared = prepared)))
          : check.run({ ...tools, ...recorder, need, prepared: tally.prepared }).pipe(Effect.map((value) => keep(check.name, value)))
        const stepStarted = yield* Clock.currentTimeMillis
        const outcome = yield* body.pipe(
          Scope.extend(scope),
          Effect.timeoutFail({ duration: budget, onTimeout: () => new Stop(plan.timedOut(budget)) }),
          Effect.either
        )
        if (outcome._tag === "Left") {
          const error = outcome.left
          if (error instanceof Stop) tally.failures.push(error.failure)
          else if (error instanceof Blocked) markNotRun(tally, blockedWhy(error.by))
          else if (error instanceof NotRun) markNotRun(tally, error.why)
          else tally.failures.push(yield* plan.failureOf(error))
          tally.trouble ??= error instanceof Blocked || error instanceof NotRun ? "not run" : "failed"
        }
        tally.ms += (yield* Clock.currentTimeMillis) - stepStarted
        const after = yield* (plan.after?.(check, preparing ? `${name}, its preparation` : name, preparing) ?? Effect.succeed({} as AfterStep<Name>))
        const dropFindings = () => {
          tally.failures.length = kept.failures
          tally.warnings.length = kept.warnings
          tally.notes.length = kept.notes
          tally.trouble = kept.trouble
          tally.notRun = undefined
        }
        const again = after.again === true && attempt === 0
        if (again || after.drop) dropFindings()
        if (after.again && !again) {
          dropFindings()
          markNotRun(tally, "the server died again while it ran")
        } else if (after.notRun !== undefined) {
          dropFindings()
          markNotRun(tally, after.notRun)
        }
        for (const { check: owner, failure, instead } of after.blame ?? []) {
          const blamed = tallyOf(owner)
          if (instead) {
            blamed.failures.length = Math.min(blamed.failures.length, blamed.before.failures)
            blamed.warnings.length = Math.min(blamed.warnings.length, blamed.before.warnings)
          }
          blamed.failures.push(failure)
          blamed.trouble = "failed"
          blamed.notRun = undefined
        }
        if (again) continue
        break
      }
      // Resources no step still to come builds on go now: a client under check is quit and closed.
      const later = steps.slice(index + 1).map((each) => (typeof each === "string" ? each : each.prepare))
      for (const [owner, each] of tallies) {
        if (each.scope === undefined || later.some((next) => next === owner || plan.checks[next].needs.some((need) => need === owner))) continue
        yield* Scope.close(each.scope, Exit.void)
        each.scope = undefined
      }
    }

    // With --only, a check it builds on that failed is reported too: it is why NAME was not run.
    return Object.values<C>(plan.checks)
      .filter((check) => plan.only === undefined || check.name === plan.only || (tallies.get(check.name)?.failures.length ?? 0) > 0)
      .map((check): CheckResult => {
        const skipped = plan.skipped?.(check)
        const tally = tallyOf(check.name)
        const notRunWhy = skipped ?? tally.notRun
        const status = tally.failures.length > 0 ? "fail" : notRunWhy !== undefined ? "not run" : tally.warnings.length > 0 ? "warn" : "pass"
        return {
          name: check.name,
          title: check.title,
          status,
          ...(status === "not run" && notRunWhy !== undefined ? { notRun: notRunWhy } : {}),
          notes: tally.notes,
          failures: alike(tally.failures),
          warnings: alike(tally.warnings),
          ms: Math.round(tally.ms)
        }
      })
  })
