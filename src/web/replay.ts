import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, type Scope, Stream } from "effect"
import { type GameState, standings } from "../core/state.js"
import { summaryText } from "../protocol/dialect.js"
import type { Recording } from "../recording/format.js"
import { moveCount, replayRecording } from "../recording/replay.js"
import type { WebAddress } from "./address.js"
import { WebError } from "./error.js"
import { helloOf, sseEvent } from "./frame.js"
import { pageResponse } from "./page.js"
import { type Listening, listen } from "./server.js"
import { defaultWatchOptions, eventStream, tooManyWatchers } from "./watch.js"

/**
 * One move of a replay, for the page: what changed is sent, the rest carries over from the
 * move before, so a long game stays a small download.
 */
export interface ReplayFrame {
  /** Milliseconds after the recording began. */
  readonly t: number
  readonly m: number
  /** Where each player who joined so far stands, by letter order; -1 once it quit. */
  readonly p: ReadonlyArray<number>
  /** The piles left, when they changed. */
  readonly g?: ReadonlyArray<number>
  /** The purses, when they changed. */
  readonly $?: ReadonlyArray<number>
  /** The nuggets left, when they changed. */
  readonly r?: number
  /** The summary, once the game is over. */
  readonly s?: string
}

export interface ReplayHello {
  readonly mode: "replay"
  readonly rows: number
  readonly cols: number
  readonly map: string
  readonly names: ReadonlyArray<{ readonly letter: string; readonly name: string }>
  readonly moves: number
  readonly frames: ReadonlyArray<ReplayFrame>
}

/** The recording replayed by the real core, move by move, as the page's frames. */
export const replayHello = (recording: Recording): Effect.Effect<ReplayHello, WebError> =>
  Effect.gen(function*() {
    const frames: Array<ReplayFrame> = []
    let gold = ""
    let purses = ""
    let remaining = -1
    const addFrame = ({ move, t }: { readonly move: number; readonly t: number }, state: GameState) =>
      Effect.sync(() => {
        const goldNow = [...state.gold.keys()]
        const pursesNow = state.players.map((each) => each.purse)
        const frame: { -readonly [K in keyof ReplayFrame]: ReplayFrame[K] } = {
          t,
          m: move,
          p: state.players.map((each) => (each.active ? each.position : -1))
        }
        if (goldNow.join() !== gold) frame.g = goldNow
        if (pursesNow.join() !== purses) frame.$ = pursesNow
        if (state.goldRemaining !== remaining) frame.r = state.goldRemaining
        if (state.over) frame.s = summaryText(standings(state))
        gold = goldNow.join()
        purses = pursesNow.join()
        remaining = state.goldRemaining
        frames.push(frame)
      })
    const result = yield* replayRecording(recording, addFrame).pipe(
      Effect.mapError((error) => new WebError({ reason: "BadRecording", message: error.message }))
    )
    const hello = helloOf(result.state, "replay")
    return {
      ...hello,
      mode: "replay",
      names: result.state.players.map(({ letter, name }) => ({ letter, name })),
      moves: moveCount(recording),
      frames
    }
  })

/**
 * A recording on the web, in the same page as a live game: the page gets every move at
 * once and plays it with its own pause and speed controls, so watchers never wait on each
 * other. `/` and `/watch` only.
 */
export const startReplayWeb = (
  recording: Recording,
  options: WebAddress & { readonly maxWatchers?: number }
): Effect.Effect<Listening, WebError, Scope.Scope> =>
  Effect.gen(function*() {
    const hello = sseEvent("hello", yield* replayHello(recording))
    const maxWatchers = options.maxWatchers ?? defaultWatchOptions.maxWatchers
    let watchers = 0
    const watch = Effect.gen(function*() {
      if (watchers >= maxWatchers) return tooManyWatchers
      watchers++
      yield* Effect.addFinalizer(() => Effect.sync(() => watchers--))
      // Held open after the one event: a stream that ends is one the browser asks for again.
      return eventStream(Stream.concat(Stream.succeed(hello), Stream.never))
    })
    const router = HttpRouter.empty.pipe(
      HttpRouter.get("/", Effect.succeed(pageResponse)),
      HttpRouter.get("/watch", watch)
    )
    return yield* listen(router, options)
  })
