import { Deferred, Effect, Exit } from "effect"
import type { Ending, Life } from "../core/life.js"

/** The one record of how a game stands: `end` decides its ending once, and `ended` waits for it. */
export interface Lifetime {
  readonly now: () => Life
  /** Ends the game as `ending` says; false, changing nothing, if it had ended already. */
  readonly end: (ending: Ending) => boolean
  /** Succeeds once the game has ended, with how. */
  readonly ended: Effect.Effect<Ending>
}

export const makeLifetime = (): Effect.Effect<Lifetime> =>
  Effect.map(Deferred.make<Ending>(), (done) => {
    let life: Life = { _tag: "Playing" }
    return {
      now: () => life,
      end: (ending) => {
        if (life._tag !== "Playing") return false
        life = ending
        Deferred.unsafeDone(done, Exit.succeed(ending))
        return true
      },
      ended: Deferred.await(done)
    }
  })
