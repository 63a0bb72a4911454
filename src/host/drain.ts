import { Duration, Effect, Stream, SubscriptionRef } from "effect"
import type { AdmissionService } from "./admission.js"
import type { HostService } from "./host.js"

/**
 * A host closing gently (`--drain`): from now on it takes no new game and no new player
 * (`/readyz` answers 503, the lobby says why); the games in play go on until they end, or
 * until `limit`, or until `now` succeeds (a second SIGTERM, Ctrl-C); then every game still
 * there ends as a stopped host's games end, everyone told to quit.
 */
export const drainThenStop = (host: HostService, admission: AdmissionService, limit: Duration.Duration, now: Effect.Effect<void>) =>
  Effect.gen(function*() {
    admission.close()
    // The lobby's pages and scripts learn it at once.
    yield* SubscriptionRef.update(host.changes, (version) => version + 1)
    const inPlay = () => host.running().filter((game) => game.live.life()._tag === "Playing").length
    yield* Effect.logInfo(`draining: ${inPlay()} games in play may go on for up to ${Duration.format(limit)}; no new game or player is taken`)
    const allEnded = host.changes.changes.pipe(Stream.filter(() => inPlay() === 0), Stream.take(1), Stream.runDrain)
    // Run as the host's interruption's handler, so uninterruptible unless said: the race must end its losers.
    const why = yield* Effect.interruptible(Effect.raceAll([
      Effect.as(allEnded, "every game in play has ended"),
      Effect.as(Effect.sleep(limit), `the drain's ${Duration.format(limit)} are up`),
      Effect.as(now, "told to stop now")
    ]))
    yield* Effect.logInfo(`drained: ${why}; ${inPlay()} games in play are ended`)
    yield* host.stopAll
  })
