import { cursorHide, cursorShow, enterAlternativeScreen, exitAlternativeScreen } from "ansi-escapes"
import { Clock, Context, Data, Deferred, Duration, Effect, Exit, Layer, Stream } from "effect"
import * as readline from "node:readline"
import { colourWanted } from "../colour.js"
import { frameDiff } from "./paint.js"
import type { Screen } from "./screen.js"
import type { WindowSize } from "./viewport.js"

/**
 * The full-screen terminal, open for as long as the layer's scope: raw keys, alternate
 * screen, hidden cursor. Closing the scope restores the terminal, however the scope ends.
 */
export class Terminal extends Context.Tag("nuggets/Terminal")<Terminal, {
  readonly size: Effect.Effect<WindowSize>
  /** The new size after each change of the window. */
  readonly resizes: Stream.Stream<WindowSize>
  /** One element per keystroke (a character or an escape sequence); ends at end of input. */
  readonly keys: Stream.Stream<string, TerminalGone>
  /** The terminal went away (SIGHUP). */
  readonly hangups: Stream.Stream<void>
  /** Shows exactly this screen, writing only what changed since the last. */
  readonly draw: (screen: Screen) => Effect.Effect<void>
  /** The screen may have been garbled: the next draw writes all of it. */
  readonly forget: Effect.Effect<void>
  /**
   * Ctrl-Z: gives the terminal back and stops the process; once continued (fg), takes the
   * screen again. False when the process could not be stopped: no shell with job control.
   */
  readonly suspend: Effect.Effect<boolean>
}>() {}

/** The terminal can no longer be read: it hung up. */
export class TerminalGone extends Data.TaggedError("TerminalGone")<{ readonly message: string }> {}

const fallbackSize: WindowSize = { columns: 80, rows: 24 }

/** How long after Ctrl-Z a process that is still running counts as never stopped. */
const notStoppedAfter = Duration.millis(50)
/** A process that was stopped sees at least this much time pass (nanoseconds): the user had to type fg. */
const stoppedFor = 200_000_000n

export interface TerminalOptions {
  /** --no-color: never colour, even on a terminal. */
  readonly noColor?: boolean
}

export const makeTerminal = (
  options: TerminalOptions = {},
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stdout
) =>
  Effect.gen(function*() {
    const colour = colourWanted(output, options.noColor === true)
    const take = () => {
      // Piped input has no raw mode: keys still arrive, and end of input quits.
      if (input.isTTY) input.setRawMode(true)
      output.write(enterAlternativeScreen + cursorHide)
    }
    const restore = () => {
      output.write(cursorShow + exitAlternativeScreen)
      try {
        if (input.isTTY) input.setRawMode(false)
      } catch {
        // The terminal is gone (hangup): nothing left to restore.
      }
    }
    // Once the terminal hangs up, writes fail with EIO; that must not crash the way out.
    const ignore = () => undefined
    // Last resort for a process.exit that skips the scope's release.
    const onExit = () => restore()
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        output.on("error", ignore)
        take()
        process.on("exit", onExit)
      }),
      () =>
        Effect.sync(() => {
          process.off("exit", onExit)
          restore()
          // A paused stdin no longer keeps the process alive.
          input.pause()
        })
    )

    const size = Effect.sync((): WindowSize =>
      output.isTTY && output.columns > 0 && output.rows > 0
        ? { columns: output.columns, rows: output.rows }
        : fallbackSize
    )

    const keys = Stream.async<string, TerminalGone>((emit) => {
      readline.emitKeypressEvents(input)
      const onKey = (text: string | undefined, key: readline.Key | undefined) => {
        const sequence = key?.sequence ?? text
        if (sequence) void emit.single(sequence)
      }
      // A terminal in raw mode never ends its input (Ctrl-D is a key): if it ends, it hung up.
      const onEnd = () => void (input.isTTY ? emit.fail(new TerminalGone({ message: "end of input" })) : emit.end())
      const onError = (error: Error) => void emit.fail(new TerminalGone({ message: error.message }))
      input.on("keypress", onKey)
      input.once("end", onEnd)
      input.once("error", onError)
      input.resume()
      return Effect.sync(() => {
        input.off("keypress", onKey)
        input.off("end", onEnd)
        input.off("error", onError)
      })
    })

    const resizes = Stream.async<WindowSize>((emit) => {
      const onResize = () => void emit.single({ columns: output.columns, rows: output.rows })
      output.on("resize", onResize)
      return Effect.sync(() => output.off("resize", onResize))
    })

    const hangups = Stream.async<void>((emit) => {
      const onHangup = () => void emit.single(undefined)
      process.on("SIGHUP", onHangup)
      return Effect.sync(() => process.off("SIGHUP", onHangup))
    })

    let shown: Screen | undefined
    const draw = (screen: Screen) =>
      Effect.sync(() => {
        const diff = frameDiff(shown, screen, colour)
        shown = screen
        if (diff) output.write(diff)
      })

    const forget = Effect.sync(() => {
      shown = undefined
    })

    const suspend = Effect.gen(function*() {
      // Without a terminal to give back (piped input), there is no job control either.
      if (!input.isTTY) return false
      const continued = yield* Deferred.make<void>()
      const onContinue = () => void Deferred.unsafeDone(continued, Exit.void)
      return yield* Effect.acquireUseRelease(
        Effect.sync(() => {
          restore()
          process.on("SIGCONT", onContinue)
        }),
        () =>
          Effect.gen(function*() {
            const sentAt = yield* Clock.currentTimeNanos
            yield* Effect.sync(() => process.kill(process.pid, "SIGTSTP"))
            // A process with no shell to continue it (an orphaned process group) is not stopped:
            // the signal is dropped. Then take the screen back at once. A stop shows as time passed.
            const lookBack = Effect.sleep(notStoppedAfter).pipe(
              Effect.zipRight(Clock.currentTimeNanos),
              Effect.map((now) => now - sentAt > stoppedFor)
            )
            return yield* Effect.race(Deferred.await(continued).pipe(Effect.as(true)), lookBack)
          }),
        () =>
          Effect.sync(() => {
            process.off("SIGCONT", onContinue)
            take()
            shown = undefined
          })
      )
    })

    return Terminal.of({ size, resizes, keys, hangups, draw, forget, suspend })
  })

export const terminalLayer = (options: TerminalOptions = {}): Layer.Layer<Terminal> => Layer.scoped(Terminal, makeTerminal(options))
