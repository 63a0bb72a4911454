import { Duration, Effect, Fiber, Stream, SubscriptionRef } from "effect"
import { plural } from "../words.js"
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
    yield* Effect.logInfo(`draining: ${plural(inPlay(), "game")} in play may go on for up to ${Duration.format(limit)}; no new game or player is taken`)
    const allEnded = host.changes.changes.pipe(Stream.filter(() => inPlay() === 0), Stream.take(1), Stream.runDrain)
    // This runs as the handler of the host's interruption: a region made interruptible here would
    // end at once, the interruption being due. The race runs in a fiber of its own, which can end its losers.
    const race = Effect.raceAll([
      Effect.as(allEnded, "every game in play has ended"),
      Effect.as(Effect.sleep(limit), `the drain's ${Duration.format(limit)} are up`),
      Effect.as(now, "told to stop now")
    ])
    const why = yield* Effect.forkDaemon(Effect.interruptible(race)).pipe(Effect.flatMap(Fiber.join))
    const left = inPlay()
    yield* Effect.logInfo(`drained: ${why}; ${plural(left, "game")} in play ${left === 1 ? "is" : "are"} ended`)
    yield* host.stopAll
  })
