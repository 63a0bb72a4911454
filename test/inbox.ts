import { Cause, Duration, Effect, Exit, Queue } from "effect"

/**
 * Items as they arrive (datagrams, events, output lines), taken in order, each awaited with
 * a deadline, never a sleep. One pattern for every harness: an Effect `Queue` taken with
 * `timeoutFail`, as test/client/fakes.ts does, behind a Promise for tests written with
 * async/await. `all` keeps everything that arrived, taken or not.
 */
export class Inbox<A> {
  readonly all: Array<A> = []
  private readonly queue = Effect.runSync(Queue.unbounded<A>())

  constructor(private readonly what: string) {}

  push(item: A): void {
    this.all.push(item)
    Queue.unsafeOffer(this.queue, item)
  }

  /** The next item, failing with what came last if none comes within `timeoutMs`. */
  async next(timeoutMs = 3000): Promise<A> {
    const exit = await Effect.runPromiseExit(
      Queue.take(this.queue).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(Math.max(1, timeoutMs)),
          onTimeout: () =>
            new Error(`${this.what}: nothing within ${timeoutMs} ms; last: ${JSON.stringify(this.all.slice(-3)).slice(0, 400)}`)
        })
      )
    )
    if (Exit.isSuccess(exit)) return exit.value
    throw Cause.squash(exit.cause)
  }

  /** The next item that satisfies `wanted`, skipping others, all within `timeoutMs`. */
  async nextWhere(wanted: (item: A) => boolean, timeoutMs = 3000): Promise<A> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const item = await this.next(deadline - Date.now())
      if (wanted(item)) return item
    }
  }
}
