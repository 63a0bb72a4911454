import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, type Scope } from "effect"
import type { GameState } from "../core/state.js"
import { endOf } from "../protocol/endings.js"
import type { Recording } from "../recording/format.js"
import { moveCount, replayRecording } from "../recording/replay.js"
import { WebError } from "./error.js"
import { FeedEvent, type ReplayHello, type ReplayMove } from "./feed.js"
import { pageRoute } from "./pageRoute.js"
import { type Listening, listen, type ListenOptions } from "./listen.js"
import { mapOf } from "./snapshot.js"
import { makeAudience } from "./audience.js"
import { sseEvent } from "./sse.js"
import { defaultWatchOptions } from "./watch.js"

/** The recording replayed by the real core, move by move, as the page's steps. */
export const replayHello = (recording: Recording): Effect.Effect<ReplayHello, WebError> =>
  Effect.gen(function*() {
    const steps: Array<ReplayMove> = []
    let gold = ""
    let purses = ""
    let remaining = -1
    const addMove = ({ move, t }: { readonly move: number; readonly t: number }, state: GameState) =>
      Effect.sync(() => {
        const goldNow = [...state.gold.keys()]
        const pursesNow = state.players.map((each) => each.purse)
        const step: { -readonly [K in keyof ReplayMove]: ReplayMove[K] } = {
          t,
          m: move,
          p: state.players.map((each) => (each.active ? each.position : -1))
        }
        if (goldNow.join() !== gold) step.g = goldNow
        if (pursesNow.join() !== purses) step.$ = pursesNow
        if (state.goldRemaining !== remaining) step.r = state.goldRemaining
        if (state.over) step.end = endOf(state.goldRemaining)
        gold = goldNow.join()
        purses = pursesNow.join()
        remaining = state.goldRemaining
        steps.push(step)
      })
    const result = yield* replayRecording(recording, addMove).pipe(
      Effect.mapError((error) => new WebError({ reason: "BadRecording", message: error.message }))
    )
    return {
      mode: "replay",
      ...mapOf(result.state),
      names: result.state.players.map(({ letter, name }) => ({ letter, name })),
      moves: moveCount(recording),
      steps
    }
  })

/**
 * A recording on the web, in the same page as a live game: the page gets every move at
 * once and plays it with its own pause and speed controls, so watchers never wait on each
 * other. `/` and `/watch` only.
 */
export const startReplayWeb = (
  recording: Recording,
  options: ListenOptions & { readonly maxWatchers?: number }
): Effect.Effect<Listening, WebError, Scope.Scope> =>
  Effect.gen(function*() {
    const hello = sseEvent(FeedEvent.hello, yield* replayHello(recording))
    const audience = yield* makeAudience({ max: options.maxWatchers ?? defaultWatchOptions.maxWatchers })
    // Held open after the one event (a stream that ends is one the browser asks for again), until the page closes it.
    const watch = audience.join(Effect.succeed(hello))
    const router = HttpRouter.empty.pipe(
      HttpRouter.get("/", pageRoute),
      HttpRouter.get("/watch", watch)
    )
    return yield* listen(router, options)
  })
