import { Deferred, Effect, type Scope } from "effect"

/**
 * SIGTERM and SIGINT after the first, for as long as the scope lasts: the first interrupts
 * the program (the runtime's own handler), the next succeeds what this gives back. While it
 * listens, a second signal no longer kills the process with the system's default: the
 * program ends as it was told, at once.
 */
export const nextSignal: Effect.Effect<Effect.Effect<void>, never, Scope.Scope> = Effect.gen(function*() {
  const again = yield* Deferred.make<void>()
  let seen = 0
  const onSignal = () => {
    seen++
    if (seen > 1) Deferred.unsafeDone(again, Effect.void)
  }
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      process.on("SIGTERM", onSignal)
      process.on("SIGINT", onSignal)
    }),
    () => Effect.sync(() => {
      process.off("SIGTERM", onSignal)
      process.off("SIGINT", onSignal)
    })
  )
  return Deferred.await(again)
})
