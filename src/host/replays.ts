import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, Either, Stream } from "effect"
import { readFile } from "node:fs/promises"
import type { ArchiveService } from "../archive/archive.js"
import { parseRecording } from "../recording/format.js"
import { FeedEvent } from "../web/feed.js"
import { refusal } from "../web/headers.js"
import { gameIdPattern } from "../web/lobbyApi.js"
import { replayHello } from "../web/recorded.js"
import { eventStream, heartbeats, sseEvent } from "../web/sse.js"
import { defaultWatchOptions, tooManyWatchers } from "../web/watch.js"

/** Replays kept ready, the most recently asked for: a game everyone opens from the lobby is replayed once. */
const kept = 8

/**
 * A past game in the game's own page (`/archive/ID/`): its feed, `/archive/ID/watch`,
 * sends every move at once, replayed by the real core from the recording, and the page
 * plays them at its own pace (see `web/recorded.ts`).
 */
export const replayRoutes = (archive: ArchiveService) => {
  const ready = new Map<string, Uint8Array>()
  let watchers = 0
  const place = Effect.acquireRelease(Effect.sync(() => watchers++), () => Effect.sync(() => watchers--))
  // One replay at a time: working one out is the core's work, done on the thread every game shares.
  const oneAtATime = Effect.unsafeMakeSemaphore(1)

  const helloOf = (id: string) =>
    Effect.gen(function*() {
      const cached = ready.get(id)
      if (cached !== undefined) {
        ready.delete(id)
        ready.set(id, cached)
        return Either.right(cached)
      }
      const game = yield* Effect.either(archive.game(id))
      if (Either.isLeft(game)) return Either.left(game.left.reason === "UnknownGame" ? 404 : 503)
      const text = yield* Effect.either(Effect.tryPromise(() => readFile(game.right.file, "utf8")))
      if (Either.isLeft(text)) return Either.left(404)
      const recording = parseRecording(text.right)
      if (Either.isLeft(recording)) return Either.left(422)
      const hello = yield* Effect.either(replayHello(recording.right))
      if (Either.isLeft(hello)) return Either.left(422)
      const bytes = sseEvent(FeedEvent.hello, hello.right)
      // A game still in play grows: only a finished one is kept.
      if (game.right.outcome !== "playing") {
        ready.set(id, bytes)
        if (ready.size > kept) ready.delete(ready.keys().next().value!)
      }
      return Either.right(bytes)
    }).pipe(oneAtATime.withPermits(1))

  const watch = Effect.gen(function*() {
    const { id = "" } = yield* HttpRouter.params
    if (!gameIdPattern.test(id)) return refusal(404, "No such game.")
    if (watchers >= defaultWatchOptions.maxWatchers) return tooManyWatchers
    const hello = yield* helloOf(id)
    if (Either.isLeft(hello)) {
      return refusal(hello.left, hello.left === 404 ? "No such game in the archive." : hello.left === 422 ? "This recording cannot be replayed." : "The archive cannot answer.")
    }
    yield* place
    // Held open after the one event (a stream that ends is one the browser asks for again), until the page closes it.
    return eventStream(Stream.concat(Stream.succeed(hello.right), heartbeats))
  })
  return { watch }
}
