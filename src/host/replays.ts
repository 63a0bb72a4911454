import * as HttpRouter from "@effect/platform/HttpRouter"
import { Cache, Data, Duration, Effect, Either, Exit } from "effect"
import type { ArchiveService } from "../archive/archive.js"
import { parseRecording } from "../recording/format.js"
import { makeAudience } from "../web/audience.js"
import { FeedEvent } from "../web/feed.js"
import { refusal } from "../web/headers.js"
import { isGameId } from "../lobby/schemas.js"
import { replayHello } from "../web/recorded.js"
import { sseEvent } from "../web/sse.js"
import { defaultWatchOptions } from "../web/watch.js"

/** Replays kept ready, the most recently asked for: a game everyone opens from the lobby is replayed once. */
const kept = 8

/** Why a past game cannot be replayed: not in the archive (404), its recording unreadable (422), the archive failing (503). */
class NoReplay extends Data.TaggedError("NoReplay")<{ readonly status: 404 | 422 | 503 }> {}

const words: Readonly<Record<NoReplay["status"], string>> = {
  404: "No such game in the archive.",
  422: "This recording cannot be replayed.",
  503: "The archive cannot answer."
}

/** A replay's first event, and whether its game is over (only then is it kept: a game in play grows). */
interface Replay {
  readonly hello: Uint8Array
  readonly finished: boolean
}

/**
 * A past game in the game's own page (`/archive/ID/`): its feed, `/archive/ID/watch`,
 * sends every move at once, replayed by the real core from the recording, and the page
 * plays them at its own pace (see `web/recorded.ts`). Its watchers are one audience.
 */
export const replayRoutes = (archive: ArchiveService) =>
  Effect.gen(function*() {
    const audience = yield* makeAudience({ max: defaultWatchOptions.maxWatchers })
    // One replay at a time: working one out is the core's work, done on the thread every game shares.
    const oneAtATime = yield* Effect.makeSemaphore(1)

    const replayOf = (id: string) =>
      Effect.gen(function*() {
        const game = yield* archive.game(id).pipe(Effect.mapError((error) => new NoReplay({ status: error.reason === "UnknownGame" ? 404 : 503 })))
        const recorded = yield* archive.recording(id).pipe(Effect.mapError((error) => new NoReplay({ status: error.reason === "UnknownGame" ? 404 : 503 })))
        const recording = yield* Either.mapLeft(parseRecording(new TextDecoder().decode(recorded)), () => new NoReplay({ status: 422 }))
        const hello = yield* replayHello(recording).pipe(Effect.mapError(() => new NoReplay({ status: 422 })))
        return { hello: sseEvent(FeedEvent.hello, hello), finished: game.outcome !== "playing" } satisfies Replay
      }).pipe(oneAtATime.withPermits(1))

    const replays = yield* Cache.makeWith({
      capacity: kept,
      lookup: replayOf,
      // Only a finished game's replay is kept; a failure is asked again next time.
      timeToLive: (exit) => (Exit.isSuccess(exit) && exit.value.finished ? Duration.infinity : Duration.zero)
    })

    const watch = Effect.gen(function*() {
      const { id = "" } = yield* HttpRouter.params
      if (!isGameId(id)) return refusal(404, "No such game.")
      // Held open after the one event (a stream that ends is one the browser asks for again), until the page closes it.
      return yield* audience.join(Effect.map(replays.get(id), (replay) => replay.hello)).pipe(
        Effect.catchTag("NoReplay", ({ status }) => Effect.succeed(refusal(status, words[status])))
      )
    })
    return { watch }
  })
