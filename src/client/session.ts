import { Data, Deferred, Duration, Effect, Layer, Queue, Ref, Stream } from "effect"
import * as dns from "node:dns"
import { type Datagram, type Endpoint, makeUdpSocket } from "../net/udp.js"
import { type ClientMessage, encodeClientMessage, excerpt } from "../protocol/messages.js"
import { screenLines } from "./screen.js"
import {
  type ClientEvent,
  type ClientExit,
  type ClientState,
  initialState,
  joinMessage,
  type JoinRequest,
  receive,
  update
} from "./state.js"
import { Terminal } from "./terminal.js"

/** No game to join: the host is unknown or no server answers there. */
export class ConnectError extends Data.TaggedError("ConnectError")<{
  readonly reason: "UnknownHost" | "NoAnswer"
  readonly message: string
}> {}

export interface JoinOptions {
  readonly host: string
  readonly port: number
  readonly request: JoinRequest
  /** How long the server has to give its first answer. */
  readonly answerTimeout: Duration.DurationInput
  /** How long to wait for the server's QUIT after the player pressed Q. */
  readonly quitTimeout?: Duration.DurationInput
}

export const defaultAnswerTimeout = Duration.seconds(3)

/** A name or an address (IPv4 first, as most servers listen there), and its UDP family. */
export const resolveHost = (host: string) =>
  Effect.async<{ readonly address: string; readonly family: "udp4" | "udp6" }, ConnectError>((resume) => {
    const name = host.replace(/^\[(.*)\]$/, "$1")
    dns.lookup(name, { order: "ipv4first" }, (error, address, family) => {
      resume(
        error || !address
          ? Effect.fail(new ConnectError({ reason: "UnknownHost", message: `${host} — unknown host` }))
          : Effect.succeed({ address, family: family === 6 ? "udp6" : "udp4" })
      )
    })
  })

/**
 * Joins the game at host:port and plays it until it ends. The terminal (the `screen` layer)
 * is only taken over once the server has answered, and is restored before this returns.
 */
export const joinGame = (options: JoinOptions, screen: Layer.Layer<Terminal>) =>
  Effect.gen(function*() {
    const { address, family } = yield* resolveHost(options.host)
    const server: Endpoint = { address, port: options.port }
    const socket = yield* makeUdpSocket({ family })
    yield* Effect.logInfo(`joining ${options.host}:${options.port} (${address}) from port ${socket.local.port}`)

    // One reader of the socket; everything else reads this queue, one datagram at a time.
    const fromServer = yield* Queue.dropping<Datagram>(8192)
    yield* socket.incoming.pipe(
      Stream.runForEach((datagram) =>
        datagram.address === server.address && datagram.port === server.port
          ? Queue.offer(fromServer, datagram)
          : Effect.logWarning(`ignored a datagram from ${datagram.address}:${datagram.port}`)
      ),
      Effect.forkScoped
    )

    const send = (message: ClientMessage) => {
      const text = encodeClientMessage(message)
      return Effect.logDebug(`sent ${excerpt(text)}`).pipe(Effect.zipRight(socket.send(text, server)))
    }

    yield* send(joinMessage(options.request))
    const first = yield* Queue.take(fromServer).pipe(
      Effect.timeoutFail({
        duration: options.answerTimeout,
        onTimeout: () =>
          new ConnectError({
            reason: "NoAnswer",
            message: `${options.host}:${options.port} — no Nuggets server answered`
          })
      }),
      // Interrupted while waiting: the server may have let us in already.
      Effect.onInterrupt(() => send({ _tag: "Key", key: "Q" }))
    )
    yield* Effect.logDebug(`received ${excerpt(first.data.toString("utf8"))}`)
    const answered = receive(initialState(options.request), first.data)
    // Refused, or told to quit at once: the terminal is never taken over.
    if (answered.exit) {
      yield* Effect.logInfo(`the session ended before it began: ${describeExit(answered.exit)}`)
      return answered.exit
    }

    const exit = yield* play(answered, fromServer, send, options.quitTimeout ?? defaultQuitTimeout).pipe(
      Effect.provide(screen)
    )
    yield* Effect.logInfo(`the session ended: ${describeExit(exit)}`)
    return exit
  }).pipe(Effect.scoped)

type LoopEvent = ClientEvent | { readonly _tag: "Resize" }

export const defaultQuitTimeout = Duration.seconds(2)

const play = (
  start: ClientState,
  fromServer: Queue.Queue<Datagram>,
  send: (message: ClientMessage) => Effect.Effect<void>,
  quitTimeout: Duration.DurationInput
) =>
  Effect.gen(function*() {
    const terminal = yield* Terminal
    const current = yield* Ref.make(start)
    const quitPressed = yield* Deferred.make<void>()
    const redraw = (state: ClientState) =>
      terminal.size.pipe(Effect.flatMap((size) => terminal.draw(screenLines(state, size))))

    const events = Stream.mergeAll([
      Stream.fromQueue(fromServer).pipe(
        Stream.tap((datagram) => Effect.logDebug(`received ${excerpt(datagram.data.toString("utf8"))}`)),
        Stream.map((datagram): LoopEvent => ({ _tag: "Datagram", data: datagram.data }))
      ),
      terminal.keys.pipe(
        Stream.map((sequence): LoopEvent => ({ _tag: "Key", sequence })),
        Stream.concat(Stream.succeed<LoopEvent>({ _tag: "EndOfInput" })),
        Stream.catchAll((gone) =>
          Stream.fromEffect(Effect.logInfo(`the terminal is gone: ${gone.message}`)).pipe(
            Stream.as<LoopEvent>({ _tag: "Hangup" })
          )
        )
      ),
      terminal.resizes.pipe(Stream.map((): LoopEvent => ({ _tag: "Resize" }))),
      terminal.hangups.pipe(Stream.map((): LoopEvent => ({ _tag: "Hangup" }))),
      // A server that died cannot say QUIT: do not leave the player waiting after Q.
      Stream.fromEffect(
        Deferred.await(quitPressed).pipe(Effect.zipRight(Effect.sleep(quitTimeout)), Effect.as<LoopEvent>({
          _tag: "QuitUnanswered"
        }))
      )
    ], { concurrency: "unbounded" })

    yield* redraw(start)
    const last = yield* events.pipe(
      Stream.runFoldWhileEffect(start, (state) => state.exit === undefined, (state, event) =>
        Effect.gen(function*() {
          if (event._tag === "Resize") {
            yield* redraw(state)
            return state
          }
          const next = update(state, event)
          yield* Ref.set(current, next.state)
          if (next.state.quitSent) yield* Deferred.succeed(quitPressed, undefined)
          yield* Effect.forEach(next.send, send, { discard: true })
          if (!next.state.exit) yield* redraw(next.state)
          return next.state
        })),
      // SIGINT or SIGTERM interrupt the program: still tell the server we are gone.
      Effect.onInterrupt(() =>
        Ref.get(current).pipe(
          Effect.flatMap((state) => state.quitSent ? Effect.void : send({ _tag: "Key", key: "Q" }))
        )
      )
    )
    return last.exit ?? ({ _tag: "UserQuit", how: "end of input" } satisfies ClientExit)
  })

/** One line for the log: how the session ended, without the summary's lines. */
const describeExit = (exit: ClientExit): string => {
  switch (exit._tag) {
    case "GameOver":
      return "game over"
    case "UserQuit":
      return `the user left (${exit.how})`
    case "BadGrid":
      return `bad GRID: ${exit.reason}`
    default:
      return `${exit._tag === "Quit" ? "told to quit" : "refused"}${exit.reason ? `: ${excerpt(exit.reason)}` : ""}`
  }
}
