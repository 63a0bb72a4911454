import { Duration, Effect, Layer, Queue, Ref, Stream, SubscriptionRef } from "effect"
import { makeUdpSocket } from "../../src/net/nodeUdp.js"
import type { Endpoint } from "../../src/net/udp.js"
import { datagramText } from "../../src/protocol/messages.js"
import type { WindowSize } from "../../src/client/viewport.js"
import { Terminal } from "../../src/client/terminal.js"

/** How long a test waits for something that should happen at once on loopback. */
export const patience = Duration.seconds(3)

/**
 * The server side of the protocol, played by the test on a real UDP socket: it sees exactly
 * what the client sends and sends whatever the test wants, well-formed or not.
 */
export const fakeServer = Effect.gen(function*() {
  const socket = yield* makeUdpSocket({ host: "127.0.0.1" })
  const inbox = yield* Queue.unbounded<{ readonly text: string; readonly from: Endpoint }>()
  yield* socket.incoming.pipe(
    Stream.runForEach((datagram) =>
      Queue.offer(inbox, { text: datagramText(datagram.data), from: { address: datagram.address, port: datagram.port } })
    ),
    Effect.forkScoped
  )
  const client = yield* Ref.make<Endpoint | undefined>(undefined)
  return {
    port: socket.local.port,
    /** The next datagram from any client; remembers its sender as the one `send` answers. */
    receive: Queue.take(inbox).pipe(
      Effect.tap((datagram) => Ref.set(client, datagram.from)),
      Effect.map((datagram) => datagram.text),
      Effect.timeoutFail({ duration: patience, onTimeout: () => new Error("the client sent nothing") })
    ),
    /** The next datagram that starts with `prefix`, skipping others (PLAY sent again, say). */
    receiveStarting: (prefix: string) =>
      Queue.take(inbox).pipe(
        Effect.repeat({ until: (datagram) => datagram.text.startsWith(prefix) }),
        Effect.tap((datagram) => Ref.set(client, datagram.from)),
        Effect.map((datagram) => datagram.text),
        Effect.timeoutFail({ duration: patience, onTimeout: () => new Error(`the client sent no ${prefix}`) })
      ),
    /** What came and was not taken yet, without waiting. */
    pending: Queue.takeAll(inbox).pipe(Effect.map((datagrams) => Array.from(datagrams, (datagram) => datagram.text))),
    send: (...texts: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const to = yield* Ref.get(client)
        if (!to) return yield* Effect.dieMessage("no client to answer yet")
        for (const text of texts) yield* socket.send(text, to)
      })
  }
})

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
