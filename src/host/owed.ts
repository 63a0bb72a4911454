import { Cause, Effect, Exit, FiberHandle, Option, Schedule, type Scope } from "effect"
import { isDamage, what } from "../archive/errors.js"
import type { ArchiveOwnerService } from "../archive/owner.js"
import { gameAnnotation } from "../log.js"
import { plural } from "../words.js"

/**
 * What the archive owes the games that went while it could not write (a full disk): the
 * row of a game ended (`index`: its recording, indexed), or of a game no one came to (`drop`:
 * its row and recording removed). Left undone, a game gone from the host would stay
 * `playing` in the archive until the next start's reconcile.
 */
export type Owing = "index" | "drop"

export interface Owed {
  /**
   * The archive could not do `work` for game `id`, for `cause`: said once, here, and tried
   * again on the schedule until done, unless it never can be (the recording cannot be read).
   */
  readonly owe: (id: string, work: Owing, cause: Cause.Cause<unknown>) => Effect.Effect<void>
}

/** What went wrong, in the words of whoever said it. */
const wordsOf = (cause: Cause.Cause<unknown>): string => what(Cause.squash(cause))

/**
 * A failure another try cannot mend: the game is not in the archive, its recording cannot be
 * read, or the index is damaged (the next start makes it again, from the recordings).
 */
const forGood = (cause: Cause.Cause<unknown>) =>
  Cause.failureOption(cause).pipe(
    Option.exists((error) =>
      isDamage(error) ||
      (error as { _tag?: unknown })._tag === "UnreadableRecording" ||
      ((error as { _tag?: unknown; reason?: unknown })._tag === "ArchiveError" && (error as { reason?: unknown }).reason === "UnknownGame")
    )
  )

/** What the log says of each work: it failed, and it was done late. */
const words: Record<Owing, { readonly failed: string; readonly done: string }> = {
  index: { failed: "the archive could not index it", done: "the archive indexed it, late" },
  drop: { failed: "the archive could not forget it (no one came to it)", done: "the archive forgot it, late" }
}

/**
 * The archive's debts to games gone, paid in one fiber of the scope: on `schedule` after
 * the first failure, each try in the order owed, stopping at the first that fails (the disk
 * is still full). `indexed` is told of each game indexed late. The scope's end leaves the
 * rest to the next start's reconcile.
 */
export const makeOwed = (options: {
  readonly owner: ArchiveOwnerService
  readonly schedule: Schedule.Schedule<unknown>
  /** Each failure to write, counted (`/metrics`). */
  readonly failed: () => void
  readonly indexed: (id: string) => Effect.Effect<void>
}): Effect.Effect<Owed, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { owner } = options
    const owed = new Map<string, Owing>()
    const payer = yield* FiberHandle.make<void, never>()
    /** Whether the payer runs: it says it ends in the step that finds nothing owed, so no debt owed meanwhile waits unseen. */
    let paying = false
    const about = (id: string) => Effect.annotateLogs(gameAnnotation, id)

    const pay = (id: string, work: Owing) =>
      Effect.gen(function*() {
        const done = yield* Effect.exit(work === "index" ? owner.gameEnded(id) : owner.gameDropped(id))
        if (Exit.isFailure(done) && !forGood(done.cause)) return false
        owed.delete(id)
        if (Exit.isFailure(done)) {
          yield* Effect.logWarning(`${words[work].failed}: ${wordsOf(done.cause)}`)
        } else {
          yield* Effect.logInfo(words[work].done)
          if (work === "index") yield* options.indexed(id)
        }
        return true
      }).pipe(about(id))

    const payAll = Effect.gen(function*() {
      const driver = yield* Schedule.driver(options.schedule)
      while (owed.size > 0 && Option.isSome(yield* Effect.option(driver.next(undefined)))) {
        for (const [id, work] of owed) if (!(yield* pay(id, work))) break
      }
      paying = false
    })

    const owe = (id: string, work: Owing, cause: Cause.Cause<unknown>) =>
      Effect.gen(function*() {
        options.failed()
        // Whoever owes it may run where no game is named (a start that failed): the line names it.
        if (forGood(cause)) return yield* Effect.logWarning(`${words[work].failed}: ${wordsOf(cause)}`).pipe(about(id))
        owed.set(id, work)
        yield* Effect.logWarning(
          `${words[work].failed}: ${wordsOf(cause)}; tried again until it can` +
            (owed.size > 1 ? ` (${plural(owed.size, "game")} wait)` : "")
        ).pipe(about(id))
        if (paying) return
        paying = true
        yield* FiberHandle.run(payer, payAll)
      })

    return { owe }
  })
