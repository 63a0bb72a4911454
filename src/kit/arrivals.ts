import { Effect } from "effect"

/**
 * A wait for "something arrived, or time is up", for code that keeps what arrives in its own
 * list and looks at it again after each wake: a socket callback calls `arrived`, a fiber
 * waits with `arrivalOrTime(ms)`. Interrupting the wait leaves no timer behind.
 */
export const makeArrivals = () => {
  const wakers = new Set<() => void>()
  return {
    /** Wakes every wait now under way. */
    arrived: () => {
      for (const wake of [...wakers]) wake()
    },
    /** Resolves at the next `arrived`, or after `ms`. */
    arrivalOrTime: (ms: number) =>
      Effect.async<void>((resume) => {
        const done = () => {
          clearTimeout(timer)
          wakers.delete(done)
          resume(Effect.void)
        }
        const timer = setTimeout(done, Math.max(0, ms))
        wakers.add(done)
        return Effect.sync(() => {
          clearTimeout(timer)
          wakers.delete(done)
        })
      })
  }
}
