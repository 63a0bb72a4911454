import { type Clock, Duration, Effect } from "effect"

/**
 * Milliseconds since this call, read on `clock`'s steady time (the system's monotonic
 * clock, or a test's `TestClock`), for plain code such as a socket's callback.
 */
export const elapsedFrom = (clock: Clock.Clock): (() => number) => {
  const start = clock.unsafeCurrentTimeNanos()
  return () => Number(clock.unsafeCurrentTimeNanos() - start) / 1e6
}

/**
 * Resumes once what had already arrived when it started (datagrams waiting in a socket, a
 * key in the terminal) has been read: one turn of Node's event loop, which runs due timers
 * before it reads input. A process that waited for the CPU wakes with both a timer due and
 * an answer waiting; a deadline judged, or a retry sent, straight from the timer would act
 * as if the answer had not come. So each waits for this first.
 */
export const arrivalsRead: Effect.Effect<void> = Effect.async<void>((resume) => {
  const immediate = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(immediate))
})

/** Ends after `ms` on the Clock and then `arrivalsRead`: a deadline that what came in time always beats. */
export const deadline = (ms: number): Effect.Effect<void> => Effect.sleep(Duration.millis(Math.max(0, ms))).pipe(Effect.zipRight(arrivalsRead))
