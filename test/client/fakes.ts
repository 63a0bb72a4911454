import { Duration, Effect, Layer, Queue, Ref, Stream, SubscriptionRef } from "effect"
import { openScriptServer } from "../../src/kit/check-client/script-server.js"
import { nodeUdpLayer } from "../../src/net/nodeUdp.js"
import type { WindowSize } from "../../src/client/viewport.js"
import { Terminal } from "../../src/client/terminal.js"

/**
 * How long a test waits for what it expects before it calls it a hang: far longer than
 * anything takes on a busy machine (a program's start, a retry a second later), and well
 * inside a test's own time.
 */
export const patience = Duration.seconds(15)

/**
 * The server side of the protocol, played by the test on a real UDP socket (the kit's
 * scripted server): it sees exactly what the client sends and sends whatever the test
 * wants, well-formed or not, to the client that sent last.
 */
export const fakeServer = Effect.gen(function*() {
  const server = yield* openScriptServer()
  const ms = Duration.toMillis(patience)
  return {
    port: server.port,
    /** The next datagram from the client. */
    receive: server.next("datagram", ms).pipe(Effect.map((heard) => heard.text)),
    /**
     * The next datagram past any PLAY: the client's PLAY again while no answer had come, which
     * a slow machine's waits leave it time for. For a key the test typed.
     */
    receiveKey: server.next("a key", ms, (text) => !text.startsWith("PLAY ")).pipe(Effect.map((heard) => heard.text)),
    /** The next datagram that starts with `prefix`, skipping others (PLAY sent again, say). */
    receiveStarting: (prefix: string) =>
      server.next(prefix, ms, (text) => text.startsWith(prefix)).pipe(Effect.map((heard) => heard.text)),
    /** What came and was not taken yet, without waiting. */
    pending: server.unread.pipe(Effect.map((heard) => heard.map((each) => each.text))),
    send: server.send
  }
}).pipe(Effect.provide(nodeUdpLayer))

const EndOfInput = Symbol("EndOfInput")

/** A Terminal that records frames instead of drawing them, with keys and resizes fed by the test. */
export const fakeTerminal = (initial: WindowSize) =>
  Effect.gen(function*() {
    const size = yield* Ref.make(initial)
    const keys = yield* Queue.unbounded<string | typeof EndOfInput>()
    const resizes = yield* Queue.unbounded<WindowSize>()
    const frame = yield* SubscriptionRef.make<ReadonlyArray<string>>([])
    const opened = yield* Ref.make(0)
    const closed = yield* Ref.make(0)
    const layer = Layer.scoped(
      Terminal,
      Effect.acquireRelease(Ref.update(opened, (n) => n + 1), () => Ref.update(closed, (n) => n + 1)).pipe(
        Effect.as(Terminal.of({
          size: Ref.get(size),
          resizes: Stream.fromQueue(resizes),
          keys: Stream.fromQueue(keys).pipe(
            Stream.takeWhile((key): key is string => key !== EndOfInput)
          ),
          hangups: Stream.never,
          draw: (screen) => SubscriptionRef.set(frame, screen.map((line) => line.text)),
          forget: Effect.void,
          suspend: Effect.succeed(false)
        }))
      )
    )
    return {
      layer,
      opened: Ref.get(opened),
      closed: Ref.get(closed),
      press: (...sequences: ReadonlyArray<string>) => Queue.offerAll(keys, sequences),
      endInput: Queue.offer(keys, EndOfInput),
      resize: (next: WindowSize) => Ref.set(size, next).pipe(Effect.zipRight(Queue.offer(resizes, next))),
      /** The first frame (current or future) that satisfies `predicate`. */
      frameWhere: (predicate: (lines: ReadonlyArray<string>) => boolean) =>
        frame.changes.pipe(
          Stream.filter(predicate),
          Stream.runHead,
          Effect.flatten,
          Effect.timeout(patience),
          Effect.catchAll(() =>
            SubscriptionRef.get(frame).pipe(
              Effect.flatMap((last) => Effect.fail(new Error(`no such frame was drawn; the last was:\n${last.join("\n")}`)))
            )
          )
        ),
      frame: SubscriptionRef.get(frame)
    }
  })
