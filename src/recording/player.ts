import { Clock, Effect, Stream } from "effect"
import type { ClientExit } from "../client/state.js"
import type { WindowSize } from "../client/viewport.js"
import { Terminal } from "../client/terminal.js"
import type { Screen } from "../client/screen.js"
import { type Frame, frameScreen, gapBefore } from "./frames.js"

/**
 * Watching a recording in the terminal: the frames at the recording's pace (times
 * `speed`), with keys to pause, step and change speed. The state and its reactions are
 * plain functions; `watchRecording` runs them on a terminal.
 */

export interface Playback {
  /** The frame on screen. */
  readonly index: number
  readonly paused: boolean
  readonly speed: number
  /** When the next frame is due (ms on the clock the events are timed by). */
  readonly nextAt: number
  readonly window: WindowSize
  /** Why watching ended: the last frame was shown, or the viewer quit. */
  readonly done: "end" | "quit" | undefined
}

export type PlaybackEvent =
  | { readonly _tag: "Key"; readonly sequence: string }
  | { readonly _tag: "Tick" }
  | { readonly _tag: "Resize"; readonly window: WindowSize }

export const slowest = 1 / 8
export const fastest = 64

export const startPlayback = (frames: ReadonlyArray<Frame>, speed: number, window: WindowSize, now: number): Playback => ({
  index: 0,
  paused: false,
  speed,
  nextAt: now + gapBefore(frames, 1) / speed,
  window,
  done: frames.length === 0 ? "end" : undefined
})

/** After the last frame, a moment to see it before the summary. */
const lingerAtEnd = 1500

export const updatePlayback = (
  playback: Playback,
  frames: ReadonlyArray<Frame>,
  event: PlaybackEvent,
  now: number
): Playback => {
  if (playback.done) return playback
  const last = frames.length - 1
  const advance = (from: Playback): Playback => {
    const index = Math.min(last, from.index + 1)
    const gap = index === last ? lingerAtEnd : gapBefore(frames, index + 1)
    return { ...from, index, nextAt: now + gap / from.speed }
  }
  switch (event._tag) {
    case "Resize":
      return { ...playback, window: event.window }
    case "Tick":
      if (playback.paused || now < playback.nextAt) return playback
      return playback.index === last ? { ...playback, done: "end" } : advance(playback)
    case "Key":
      switch (event.sequence) {
        case " ":
          return { ...playback, paused: !playback.paused, nextAt: now + gapBefore(frames, playback.index + 1) / playback.speed }
        case "+":
          return { ...playback, speed: Math.min(fastest, playback.speed * 2) }
        case "-":
          return { ...playback, speed: Math.max(slowest, playback.speed / 2) }
        case ".":
          return { ...advance(playback), paused: true }
        case "q":
        case "Q":
        case "\u0003":
        case "\u0004":
          return { ...playback, done: "quit" }
        default:
          return playback
      }
  }
}

/** The screen for the playback: the frame, and the keys, while the help fits on the status line. */
export const playbackScreen = (playback: Playback, frames: ReadonlyArray<Frame>): Screen =>
  frameScreen(frames[playback.index]!, playback.window, {
    moves: frames.at(-1)?.move ?? 0,
    speed: playback.speed,
    paused: playback.paused
  })

/** Plays the frames on the terminal until the end or `q`; gives how the recorded session ended, if it did. */
export const watchRecording = (frames: ReadonlyArray<Frame>, speed: number) =>
  Effect.gen(function*() {
    const terminal = yield* Terminal
    let playback = startPlayback(frames, speed, yield* terminal.size, yield* Clock.currentTimeMillis)
    if (playback.done === undefined) yield* terminal.draw(playbackScreen(playback, frames))
    const events: Stream.Stream<PlaybackEvent> = Stream.mergeAll([
      terminal.keys.pipe(
        Stream.map((sequence): PlaybackEvent => ({ _tag: "Key", sequence })),
        Stream.catchAll(() => Stream.empty),
        Stream.concat(Stream.succeed<PlaybackEvent>({ _tag: "Key", sequence: "q" }))
      ),
      terminal.resizes.pipe(Stream.map((window): PlaybackEvent => ({ _tag: "Resize", window }))),
      Stream.tick("20 millis").pipe(Stream.map((): PlaybackEvent => ({ _tag: "Tick" })))
    ], { concurrency: "unbounded" })
    playback = yield* events.pipe(
      Stream.runFoldWhileEffect(playback, (state) => state.done === undefined, (state, event) =>
        Effect.gen(function*() {
          const next = updatePlayback(state, frames, event, yield* Clock.currentTimeMillis)
          if (next.done === undefined) yield* terminal.draw(playbackScreen(next, frames))
          return next
        }))
    )
    const exit: ClientExit | undefined = playback.done === "end" ? frames.at(-1)?.client.exit : undefined
    return { done: playback.done ?? "quit", exit, move: frames[playback.index]?.move ?? 0 }
  })
