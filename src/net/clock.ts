import type { Clock } from "effect"

/**
 * Milliseconds since this call, read on `clock`'s steady time (the system's monotonic
 * clock, or a test's `TestClock`), for plain code such as a socket's callback.
 */
export const elapsedFrom = (clock: Clock.Clock): (() => number) => {
  const start = clock.unsafeCurrentTimeNanos()
  return () => Number(clock.unsafeCurrentTimeNanos() - start) / 1e6
}
