import { Effect, Either, type Scope, Stream } from "effect"
import { elapsedFrom } from "../../net/clock.js"
import { makeInbox, Silence } from "../../net/inbox.js"
import { type Endpoint, Udp, type UdpError } from "../../net/udp.js"
import { decodeServerMessage, serverMessageWord, type ServerMessage } from "../../protocol/messages.js"
import { latin1 } from "../../protocol/transcript.js"
import { bytesOf, escaped } from "../conformance/escaping.js"

/**
 * One client of the server under check, on its own UDP socket: it sends what a check
 * says, and a check awaits what comes back, each wait with its own deadline. Every datagram
 * is also handed to the session (`onArrival`) as it comes, for the checks that watch all
 * traffic.
 */

export interface Arrival {
  readonly bytes: Uint8Array
  /** The datagram as text, byte for byte (latin1). */
  readonly text: string
  /** Milliseconds since the probe opened, by Effect's `Clock`. */
  readonly at: number
  /** The message as our (liberal) reader understands it, if it does. */
  readonly message: ServerMessage | undefined
  /** Its type, as the spec names it (`QUIT GAME OVER:` is GAMEOVER), or its first word when not understood. */
  readonly kind: string
}

const arrivalOf = (data: Uint8Array, at: number): Arrival => {
  const decoded = decodeServerMessage(data)
  const text = latin1(data)
  const message = Either.getOrUndefined(decoded)
  return { bytes: data, text, at, message, kind: message ? serverMessageWord[message._tag] : text.split(/[ \n]/, 1)[0]! }
}


export interface Probe {
  /** "spectator 1", "player 3". */
  readonly label: string
  /** What it sent last, escaped, for reports. */
  readonly lastSent: () => string
  readonly send: (message: string | Uint8Array) => Effect.Effect<void>
  /**
   * The first unread datagram for which `wanted` holds, skipping the unread ones before it;
   * fails with `Silence` after `ms`.
   */
  readonly next: (what: string, ms: number, wanted?: (arrival: Arrival) => boolean) => Effect.Effect<Arrival, Silence>
  /** Every unread datagram that comes within `ms`, or sooner once `enough` holds of them. */
  readonly gather: (ms: number, enough?: (arrivals: ReadonlyArray<Arrival>) => boolean) => Effect.Effect<ReadonlyArray<Arrival>>
  /** Forgets every unread datagram. */
  readonly skipAll: () => void
  /** The system said the server's port is closed (ICMP port unreachable). */
  readonly portClosed: () => boolean
  /** The last few datagrams received, read or not, escaped. */
  readonly recent: (count?: number) => ReadonlyArray<string>
}

/** Unread datagrams kept at most: a flooding server must not fill the checker's memory. */
const maxUnread = 4096

/** Why a probe's waits end early: the system said the server's port is closed. */
const portClosed = "the port closed (ICMP port unreachable)"

/** What the probe's owner hears of it: each datagram that comes, each it sends, and the system saying the port is closed. */
export interface ProbeHooks {
  readonly onArrival: (arrival: Arrival) => void
  readonly onSend?: (bytes: Uint8Array) => void
  readonly onPortClosed?: () => void
}

export const openProbe = (
  label: string,
  server: Endpoint,
  hooks: ProbeHooks
): Effect.Effect<Probe, UdpError, Scope.Scope | Udp> =>
  Effect.gen(function*() {
    const udp = yield* Udp
    const socket = yield* udp.open({ connectTo: server, backlog: maxUnread })
    const clock = yield* Effect.clock
    const sinceOpened = elapsedFrom(clock)
    const inbox = yield* makeInbox<Arrival>({ from: label, describe: (arrival) => escaped(arrival.text), capacity: maxUnread })
    const history: Array<string> = []
    let sent = ""
    yield* socket.onDatagram(({ data }) => {
      const arrival = arrivalOf(data, sinceOpened())
      hooks.onArrival(arrival)
      inbox.put(arrival)
      history.push(escaped(arrival.text))
      if (history.length > 8) history.shift()
    })
    yield* socket.failures.pipe(
      Stream.runForEach((failure) => Effect.sync(() => {
        if (failure.code !== "ECONNREFUSED" || inbox.ended()) return
        inbox.end(portClosed)
        hooks.onPortClosed?.()
      })),
      Effect.forkScoped
    )

    return {
      label,
      lastSent: () => sent,
      send: (message) =>
        Effect.suspend(() => {
          const bytes = bytesOf(message)
          sent = escaped(latin1(bytes))
          hooks.onSend?.(bytes)
          return socket.send(bytes, server)
        }),
      next: inbox.next,
      gather: inbox.gather,
      skipAll: inbox.skipAll,
      portClosed: inbox.ended,
      recent: (count = 3) => history.slice(-count)
    }
  })
