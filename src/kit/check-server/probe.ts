import { Data, Effect, Either, type Scope, Stream } from "effect"
import { makeUdpSocket } from "../../net/nodeUdp.js"
import type { Endpoint, UdpError } from "../../net/udp.js"
import { decodeServerMessage, type ServerMessage } from "../../protocol/messages.js"
import { latin1 } from "../../protocol/transcript.js"
import { escaped } from "../conformance/lint.js"
import { makeArrivals } from "../arrivals.js"

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
  /** Milliseconds since the probe opened. */
  readonly at: number
  /** The message as our (liberal) reader understands it, if it does. */
  readonly message: ServerMessage | undefined
  /** Its type, as the spec names it (`QUIT GAME OVER:` is GAMEOVER), or its first word when not understood. */
  readonly kind: string
}

const kinds: Readonly<Record<ServerMessage["_tag"], string>> = {
  Ok: "OK", No: "NO", Error: "ERROR", Grid: "GRID", Gold: "GOLD", Display: "DISPLAY", Quit: "QUIT", GameOver: "GAMEOVER", GoldSteal: "GOLDSTEAL"
}

const arrivalOf = (data: Uint8Array, at: number): Arrival => {
  const decoded = decodeServerMessage(data)
  const text = latin1(data)
  const message = Either.getOrUndefined(decoded)
  return { bytes: data, text, at, message, kind: message ? kinds[message._tag] : text.split(/[ \n]/, 1)[0]! }
}

/** Nothing that a check awaited came within its time. */
export class Silence extends Data.TaggedError("Silence")<{
  readonly probe: string
  readonly what: string
  readonly ms: number
  /** What did come meanwhile, escaped. */
  readonly instead: ReadonlyArray<string>
}> {
  override get message() {
    const instead = this.instead.length === 0 ? "nothing" : this.instead.slice(-3).join(", ")
    return `${this.probe}: no ${this.what} within ${this.ms} ms (got ${instead})`
  }
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

export const openProbe = (
  label: string,
  server: Endpoint,
  family: "udp4" | "udp6",
  onArrival: (arrival: Arrival) => void
): Effect.Effect<Probe, UdpError, Scope.Scope> =>
  Effect.gen(function*() {
    const socket = yield* makeUdpSocket({ family, connectTo: server, backlog: maxUnread })
    const opened = performance.now()
    const unread: Array<Arrival> = []
    const history: Array<string> = []
    const { arrived, arrivalOrTime } = makeArrivals()
    let closed = false
    let sent = ""
    yield* socket.onDatagram(({ data }) => {
      const arrival = arrivalOf(data, performance.now() - opened)
      onArrival(arrival)
      unread.push(arrival)
      if (unread.length > maxUnread) unread.shift()
      history.push(escaped(arrival.text))
      if (history.length > 8) history.shift()
      arrived()
    })
    yield* socket.failures.pipe(
      Stream.runForEach((failure) => Effect.sync(() => {
        if (failure.code === "ECONNREFUSED") closed = true
        arrived()
      })),
      Effect.forkScoped
    )

    const next: Probe["next"] = (what, ms, wanted = () => true) =>
      Effect.gen(function*() {
        const deadline = performance.now() + ms
        const skipped: Array<string> = []
        for (;;) {
          while (unread.length > 0) {
            const arrival = unread.shift()!
            if (wanted(arrival)) return arrival
            skipped.push(escaped(arrival.text))
          }
          const left = deadline - performance.now()
          if (left <= 0 || closed) {
            return yield* new Silence({ probe: label, what, ms, instead: closed ? [...skipped, "the port closed (ICMP port unreachable)"] : skipped })
          }
          yield* arrivalOrTime(left)
        }
      })

    const gather: Probe["gather"] = (ms, enough = () => false) =>
      Effect.gen(function*() {
        const deadline = performance.now() + ms
        const got: Array<Arrival> = []
        for (;;) {
          got.push(...unread.splice(0))
          if (enough(got)) return got
          const left = deadline - performance.now()
          if (left <= 0 || closed) return got
          yield* arrivalOrTime(left)
        }
      })

    return {
      label,
      lastSent: () => sent,
      send: (message) =>
        Effect.suspend(() => {
          sent = escaped(typeof message === "string" ? message : latin1(message))
          return socket.send(message, server)
        }),
      next,
      gather,
      skipAll: () => void unread.splice(0),
      portClosed: () => closed,
      recent: (count = 3) => history.slice(-count)
    }
  })
