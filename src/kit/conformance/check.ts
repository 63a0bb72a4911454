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
 * value. With `--only NAME`, NAME runs with what it builds on, and is the only one reported.
 *
 * A check ends in one of three ways: it ran to its end (its verdict is the failures it
 * recorded), it stopped at a failure (`Stop`), or it did not run (the run's deadline passed,
 * the tool said why not, or a check it builds on gave nothing: `Blocked`, naming that check).
 * The report words "not run" as a failure for now.
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

/** What a check records as it runs. */
export interface Recorder {
  /** Records a failure and goes on. */
  readonly fail: (failure: Failure) => void
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
  prepare?(context: Tools & Recorder): Effect.Effect<Prepared, Stop | E, Scope.Scope>
  run(
    context: Tools & CheckContext<Gives, Needs> & { readonly prepared: Prepared | undefined }
  ): Effect.Effect<Gives[Name], Stop | Blocked | E, Scope.Scope>
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

export interface Plan<Gives, Tools, E, Fatal, C extends Check<Gives, Tools, keyof Gives & string, keyof Gives & string, E, unknown>> {
  /** Every check, by name, in the order the report lists them. */
  readonly checks: { readonly [K in keyof Gives & string]: C & { readonly name: K } }
  /** The order the checks run in: each check once, after its `prepare` if it has one. */
  readonly order: ReadonlyArray<Step<keyof Gives & string>>
  readonly only: (keyof Gives & string) | undefined
  readonly tools: Tools
  /** The deadline for the whole run. */
  readonly totalMs: number
  /** The deadline for one step of `check`. */
  readonly budgetMs: (check: C) => number
  /** Why `check` is not judged at all (reported as skipped), if it is not. */
  readonly skipped?: (check: C) => string | undefined
  /** Why a step of `check` (its `prepare`, or its `run`) is not run now, if it is not (the server is gone). */
  readonly notRun?: (check: C, preparing: boolean) => string | undefined
  /** After each step that ran, with its label (`names` or `names, its preparation`). */
  readonly afterStep?: (check: C, label: string) => void
  /** The failure for a step that gave no verdict within `ms`. */
  readonly timedOut: (ms: number) => Failure
  /** The failure of a check that was not run, saying why. */
  readonly notRunFailure: (why: string) => Failure
  /** A failure of the tool's own (a socket it could not open), or a fatal error that ends the run. */
  readonly failureOf: (error: E) => Effect.Effect<Failure, Fatal>
}

interface Tally {
  readonly failures: Array<Failure>
  readonly notes: Array<string>
  ms: number
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
      if (!tally) tallies.set(name, tally = { failures: [], notes: [], ms: 0, trouble: undefined, scope: undefined, prepared: undefined })
      return tally
    }
    const gave: { [K in Name]?: { readonly value: Gives[K] } } = {}
    const keep = <K extends Name>(name: K, value: Gives[K]) => void (gave[name] = { value })
    const need = <K extends Name>(name: K): Effect.Effect<Gives[K], Blocked> => {
      const box = gave[name]
      return box ? Effect.succeed(box.value) : Effect.fail(new Blocked(name))
    }
    const blockedWhy = (by: string) =>
      `it builds on ${by}, which ${tallies.get(by)?.trouble === "not run" ? "was not run" : "failed"}`

    const started = yield* Clock.currentTimeMillis
    for (const [index, step] of steps.entries()) {
      const preparing = typeof step !== "string"
      const name = preparing ? step.prepare : step
      const check = plan.checks[name]
      const tally = tallyOf(name)
      if (plan.skipped?.(check) !== undefined) continue
      const recorder = {
        fail: (failure: Failure) => void tally.failures.push(failure),
        note: (text: string) => void tally.notes.push(text),
        failures: () => tally.failures.length
      }
      const notRun = (why: string) => {
        tally.failures.push(plan.notRunFailure(why))
        tally.trouble ??= "not run"
      }
      const left = plan.totalMs - ((yield* Clock.currentTimeMillis) - started)
      if (left <= 0) {
        notRun(`the whole check's deadline (${plan.totalMs / 1000} s) passed`)
        continue
      }
      const why = plan.notRun?.(check, preparing)
      if (why !== undefined) {
        notRun(why)
        continue
      }
      const scope = tally.scope ??= yield* Scope.fork(runScope, ExecutionStrategy.sequential)
      const budget = Math.min(left, plan.budgetMs(check))
      const body: Effect.Effect<void, Stop | Blocked | E, Scope.Scope> = preparing
        ? (check.prepare?.({ ...plan.tools, ...recorder }) ?? Effect.void).pipe(Effect.map((prepared) => void (tally.prepared = prepared)))
        : check.run({ ...plan.tools, ...recorder, need, prepared: tally.prepared }).pipe(Effect.map((value) => keep(check.name, value)))
      const stepStarted = yield* Clock.currentTimeMillis
      const outcome = yield* body.pipe(
        Scope.extend(scope),
        Effect.timeoutFail({ duration: budget, onTimeout: () => new Stop(plan.timedOut(budget)) }),
        Effect.either
      )
      if (outcome._tag === "Left") {
        const error = outcome.left
        if (error instanceof Stop) tally.failures.push(error.failure)
        else if (error instanceof Blocked) tally.failures.push(plan.notRunFailure(blockedWhy(error.by)))
        else tally.failures.push(yield* plan.failureOf(error))
        tally.trouble ??= error instanceof Blocked ? "not run" : "failed"
      }
      plan.afterStep?.(check, preparing ? `${name}, its preparation` : name)
      // Resources no step still to come builds on go now: a client under check is quit and closed.
      const later = steps.slice(index + 1).map((each) => (typeof each === "string" ? each : each.prepare))
      for (const [owner, each] of tallies) {
        if (each.scope === undefined || later.some((next) => next === owner || plan.checks[next].needs.some((need) => need === owner))) continue
        yield* Scope.close(each.scope, Exit.void)
        each.scope = undefined
      }
      tally.ms += (yield* Clock.currentTimeMillis) - stepStarted
    }

    return Object.values<C>(plan.checks)
      .filter((check) => plan.only === undefined || check.name === plan.only)
      .map((check): CheckResult => {
        const skipped = plan.skipped?.(check)
        if (skipped !== undefined) return { name: check.name, title: check.title, status: "skip", notes: [skipped], failures: [], ms: 0 }
        const tally = tallyOf(check.name)
        return {
          name: check.name,
          title: check.title,
          status: tally.failures.length > 0 ? "fail" : "pass",
          notes: tally.notes,
          failures: alike(tally.failures),
          ms: Math.round(tally.ms)
        }
      })
  })
