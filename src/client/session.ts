import { Clock, Effect, type Layer, Ref, Stream } from "effect"
import { RedrawKey } from "../core/constants.js"
import { arrivalsRead } from "../net/clock.js"
import { resolveHost } from "../net/resolve.js"
import { type Endpoint, Udp } from "../net/udp.js"
import { type ClientMessage, datagramText, encodeClientMessage, excerpt } from "../protocol/messages.js"
import { gameOverScreen, screen } from "./screen.js"
import {
  type ClientEvent,
  type ClientExit,
  type ClientState,
  type JoinRequest,
  mayQuit,
  quitKey,
  startClient,
  withCollected
} from "./state.js"
import type { Timings } from "./timings.js"
import { cannotSuspend, SuspendKey } from "./keys.js"
import { update } from "./update.js"
import { Terminal } from "./terminal.js"

export interface JoinOptions {
  readonly host: string
  readonly port: number
  readonly request: JoinRequest
  /** How patient to be; the defaults where not given. */
  readonly timings?: Timings
  /** Shown on the status line when there is no note: `nuggets play` puts its join line there. */
  readonly hint?: ReadonlyArray<string>
  /**
   * How many others are in the game, when this process hosts it (`nuggets play`): then
   * leaving asks first, and Ctrl-Z is refused while there are any.
   */
  readonly friends?: Effect.Effect<number>
}

/** How long the game-over screen stays, unless a key is pressed first. */
const gameOverPause = "5 seconds"

/** How often the client looks at the clock: retries and silences are timed by it. */
const tickInterval = "100 millis"

/**
 * Joins the game at host:port and plays it until it ends, on the terminal the `screen`
 * layer gives, which is restored before this returns.
 */
export const joinGame = (options: JoinOptions, terminalLayer: Layer.Layer<Terminal>) =>
  Effect.gen(function*() {
    const { address } = yield* resolveHost(options.host)
    const server: Endpoint = { address, port: options.port }
    // Connected: only the server's datagrams arrive, and a closed port is reported at once.
    const socket = yield* Effect.flatMap(Udp, (udp) => udp.open({ connectTo: server }))
    yield* Effect.logInfo(`joining ${options.host}:${options.port} (${address}) from port ${socket.local.port}`)

    const send = (message: ClientMessage) => {
      const text = encodeClientMessage(message)
      return Effect.logDebug(`sent ${excerpt(text)}`).pipe(Effect.zipRight(socket.send(text, server)))
    }
    const exit = yield* Effect.gen(function*() {
      const terminal = yield* Terminal
      const start = startClient(
        options.request,
        `${options.host}:${options.port}`,
        yield* terminal.size,
        yield* Clock.currentTimeMillis,
        options.timings,
        options.hint
      )
      yield* Effect.forEach(start.send, send, { discard: true })
      const current = yield* Ref.make(start.state)
      const redraw = (state: ClientState) => terminal.draw(screen(state))

      const events: Stream.Stream<ClientEvent> = Stream.mergeAll([
        socket.incoming.pipe(
          Stream.tap((datagram) => Effect.logDebug(`received ${excerpt(datagramText(datagram.data))}`)),
          Stream.map((datagram): ClientEvent => ({ _tag: "Datagram", data: datagram.data }))
        ),
        socket.failures.pipe(
          Stream.filter((failure) => failure.code === "ECONNREFUSED"),
          Stream.map((): ClientEvent => ({ _tag: "Unreachable" }))
        ),
        terminal.keys.pipe(
          Stream.map((sequence): ClientEvent => ({ _tag: "Key", sequence })),
          Stream.concat(Stream.succeed<ClientEvent>({ _tag: "EndOfInput" })),
          Stream.catchAll((gone) =>
            Stream.fromEffect(Effect.logInfo(`the terminal is gone: ${gone.message}`)).pipe(
              Stream.as<ClientEvent>({ _tag: "Hangup" })
            )
          )
        ),
        terminal.resizes.pipe(Stream.map((window): ClientEvent => ({ _tag: "Resize", window }))),
        terminal.hangups.pipe(Stream.map((): ClientEvent => ({ _tag: "Hangup" }))),
        // A tick comes after what arrived meanwhile, so that nothing is asked for again that came.
        Stream.tick(tickInterval).pipe(Stream.mapEffect(() => arrivalsRead), Stream.map((): ClientEvent => ({ _tag: "Tick" })))
      ], { concurrency: "unbounded" })

      yield* redraw(start.state)
      const last = yield* events.pipe(
        Stream.runFoldWhileEffect(start.state, (state) => state.exit === undefined, (state, event) =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            // Who else is in the game is looked at as time passes, and before each key.
            if ((event._tag === "Tick" || event._tag === "Key") && options.friends) {
              state = update(state, { _tag: "Friends", count: yield* options.friends }, now).state
            }
            const next = update(state, event, now)
            yield* Effect.forEach(next.send, send, { discard: true })
            let shown = next.state
            // Ctrl-L also repaints the whole screen, whatever garbled it.
            if (event._tag === "Key" && event.sequence === RedrawKey) yield* terminal.forget
            if (event._tag === "Key" && event.sequence === SuspendKey && shown.friends === 0 && !(yield* terminal.suspend)) {
              shown = cannotSuspend(shown)
            }
            yield* Ref.set(current, shown)
            if (!shown.exit) yield* redraw(shown)
            return shown
          })),
        // SIGINT or SIGTERM interrupt the program: still tell the server we are gone.
        Effect.onInterrupt(() =>
          Ref.get(current).pipe(Effect.flatMap((state) => mayQuit(state) ? send(quitKey) : Effect.void))
        )
      )
      const exit = withCollected(last.exit ?? ({ _tag: "UserQuit", how: "end of input" } satisfies ClientExit), last)
      if (exit._tag === "GameOver") {
        // The standings stay on the screen until a key, or a few seconds.
        yield* terminal.draw(gameOverScreen(last, exit.summary))
        yield* terminal.keys.pipe(Stream.take(1), Stream.runDrain, Effect.ignore, Effect.timeout(gameOverPause), Effect.option)
      }
      return exit
    }).pipe(Effect.provide(terminalLayer))
    yield* Effect.logInfo(`the session ended: ${describeExit(exit)}`)
    return exit
  }).pipe(Effect.scoped)

/** One line for the log: how the session ended, without the summary's lines. */
const describeExit = (exit: ClientExit): string => {
  switch (exit._tag) {
    case "GameOver":
      return "game over"
    case "UserQuit":
      return `the user left (${exit.how})`
    case "BadGrid":
      return `bad GRID: ${exit.reason}`
    case "NoServer":
      return `no server (${exit.why})`
    default:
      return `${exit._tag === "Quit" ? "told to quit" : "refused"}${exit.reason ? `: ${excerpt(exit.reason)}` : ""}`
  }
}
