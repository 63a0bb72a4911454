import { Clock, Effect, Stream } from "effect"
import type { Screen } from "../screen.js"
import { type ClientExit, withCollected } from "../state.js"
import { EndOfTransmissionKey, InterruptKey, SuspendKey, terminalArrow } from "../keymap.js"
import { Terminal } from "../terminal.js"
import type { WindowSize } from "../viewport.js"
import { fastest, slowest } from "../../recording/pace.js"
import { gapBefore, type Moment } from "./moments.js"
import { momentScreen } from "./screen.js"

/**
 * Watching a recording in the terminal: the moments at the recording's pace (times
 * `speed`), with the web replay's keys: pause, speed, a move on or back, a tenth of the
 * game on or back, start and end, help, suspend. Every moment is already worked out, so
 * going back is as cheap as going on. The state and its reactions are plain functions;
 * `watchRecording` runs them on a terminal.
 */

export interface Playback {
  /** The moment on screen. */
  readonly index: number
  readonly paused: boolean
  readonly speed: number
  /** When the next moment is due (ms on the clock the events are timed by). */
  readonly nextAt: number
  readonly window: WindowSize
  /** The keys are shown over the screen: the next key closes them. */
  readonly helpOpen: boolean
  /** Ctrl-Z was pressed: the terminal is to be given back until `fg`. */
  readonly suspend: boolean
  /** Why watching ended: the last moment was shown, or the viewer quit. */
  readonly done: "end" | "quit" | undefined
}

export type PlaybackEvent =
  | { readonly _tag: "Key"; readonly sequence: string }
  | { readonly _tag: "Tick" }
  | { readonly _tag: "Resize"; readonly window: WindowSize }

export const startPlayback = (moments: ReadonlyArray<Moment>, speed: number, window: WindowSize, now: number): Playback => ({
  index: 0,
  paused: false,
  speed,
  nextAt: now + gapBefore(moments, 1) / speed,
  window,
  helpOpen: false,
  suspend: false,
  done: moments.length === 0 ? "end" : undefined
})

/** After the last moment, a moment to see it before the summary. */
const lingerAtEnd = 1500

/** Keys that go a move on, a move back (with the arrows that stand for l and h). */
const forward = new Set([".", "l"])
const backward = new Set([",", "h"])

export const updatePlayback = (
  playback: Playback,
  moments: ReadonlyArray<Moment>,
  event: PlaybackEvent,
  now: number
): Playback => {
  if (playback.done) return playback
  const last = moments.length - 1
  /** Shows moment `index` (within the recording), the next one due after its gap. */
  const show = (from: Playback, index: number): Playback => {
    const at = Math.max(0, Math.min(last, index))
    const gap = at === last ? lingerAtEnd : gapBefore(moments, at + 1)
    return { ...from, index: at, nextAt: now + gap / from.speed }
  }
  const tenth = Math.max(1, Math.round(moments.length / 10))
  switch (event._tag) {
    case "Resize":
      return { ...playback, window: event.window }
    case "Tick":
      if (playback.paused || playback.helpOpen || now < playback.nextAt) return playback
      return playback.index === last ? { ...playback, done: "end" } : show(playback, playback.index + 1)
    case "Key": {
      const key = terminalArrow(event.sequence) ?? event.sequence
      const current = { ...playback, suspend: false }
      if (key === "q" || key === "Q" || key === InterruptKey || key === EndOfTransmissionKey) return { ...current, done: "quit" }
      if (current.helpOpen) return { ...current, helpOpen: false }
      if (key === "?") return { ...current, helpOpen: true }
      if (key === SuspendKey) return { ...current, suspend: true }
      if (key === " ") return { ...show(current, current.index), paused: !current.paused }
      if (key === "+") return { ...current, speed: Math.min(fastest, current.speed * 2) }
      if (key === "-") return { ...current, speed: Math.max(slowest, current.speed / 2) }
      if (forward.has(key)) return { ...show(current, current.index + 1), paused: true }
      if (backward.has(key)) return { ...show(current, current.index - 1), paused: true }
      if (key === "]") return show(current, current.index + tenth)
      if (key === "[") return show(current, current.index - tenth)
      if (key === "g") return show(current, 0)
      if (key === "G") return { ...show(current, last), paused: true }
      return current
    }
  }
}

/** The screen for the playback: the moment, where the replay is, and the keys when asked. */
export const playbackScreen = (playback: Playback, moments: ReadonlyArray<Moment>): Screen =>
  momentScreen(moments[playback.index]!, playback.window, {
    moves: moments.at(-1)?.move ?? 0,
    speed: playback.speed,
    paused: playback.paused,
    helpOpen: playback.helpOpen
  })

/** Plays the moments on the terminal until the end or `q`; gives how the recorded session ended, if it did. */
export const watchRecording = (moments: ReadonlyArray<Moment>, speed: number) =>
  Effect.gen(function*() {
    const terminal = yield* Terminal
    let playback = startPlayback(moments, speed, yield* terminal.size, yield* Clock.currentTimeMillis)
    if (playback.done === undefined) yield* terminal.draw(playbackScreen(playback, moments))
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
          let next = updatePlayback(state, moments, event, yield* Clock.currentTimeMillis)
          if (next.suspend) {
            // Stopped until fg, paused meanwhile: the keys typed at the shell never reach the replay.
            const stopped = yield* terminal.suspend
            next = { ...next, suspend: false, paused: next.paused || stopped }
          }
          if (next.done === undefined) yield* terminal.draw(playbackScreen(next, moments))
          return next
        }))
    )
    const last = moments.at(-1)?.client
    const exit: ClientExit | undefined = playback.done === "end" && last?.exit ? withCollected(last.exit, last) : undefined
    return { done: playback.done ?? "quit", exit, move: moments[playback.index]?.move ?? 0 }
  })
