import { Effect, Option, Stream } from "effect"

/**
 * The latest frame, for any number of readers. Nothing queues: a reader asks for the next
 * frame when it is ready for one and gets the newest, so a slow reader skips frames and
 * costs the writer nothing.
 */
export class Latest<A> {
  private version = 0
  private frame: A | undefined
  private readonly waiting = new Set<() => void>()

  /** Frames published so far: a reader that has seen this many waits for the next. */
  get published(): number {
    return this.version
  }

  publish(frame: A): void {
    this.version++
    this.frame = frame
    const woken = [...this.waiting]
    this.waiting.clear()
    for (const wake of woken) wake()
  }

  /** The newest frame after the first `seen`: at once if there is one, else when it comes. */
  next(seen: number): Effect.Effect<readonly [frame: A, version: number]> {
    return Effect.async((resume) => {
      if (this.version > seen) return resume(Effect.succeed([this.frame!, this.version] as const))
      const wake = () => resume(Effect.succeed([this.frame!, this.version] as const))
      this.waiting.add(wake)
      return Effect.sync(() => this.waiting.delete(wake))
    })
  }

  /** Every frame from the one after `seen` on, newest first whenever the reader lags. */
  stream(seen: number): Stream.Stream<A> {
    return Stream.unfoldEffect(seen, (after) =>
      this.next(after).pipe(Effect.map(([frame, version]) => Option.some([frame, version] as const))))
  }
}
