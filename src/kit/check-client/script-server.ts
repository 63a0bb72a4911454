import { Effect, type Scope } from "effect"
import { makeUdpSocket } from "../../net/nodeUdp.js"
import type { Endpoint, UdpError } from "../../net/udp.js"
import { latin1 } from "../../protocol/transcript.js"
import { escaped } from "../conformance/lint.js"
import { Silence } from "../check-server/probe.js"
import { makeArrivals } from "../arrivals.js"

/**
 * The server side of `check client`: a UDP socket that records what the client sends and
 * sends it whatever the script says, well formed or not, to the address it last heard from.
 */

export interface Heard {
  readonly text: string
  /** Milliseconds since the server opened. */
  readonly at: number
}

export interface ScriptServer {
  readonly port: number
  /** Everything the client sent, in order. */
  readonly heard: ReadonlyArray<Heard>
  /** The first datagram from the index `from` on (default: the next unread) for which `wanted` holds. */
  readonly next: (what: string, ms: number, wanted?: (text: string) => boolean) => Effect.Effect<Heard, Silence>
  /** Sends each text to the client, in order. */
  readonly send: (...texts: ReadonlyArray<string>) => Effect.Effect<void>
  /** Whether anything came from the client in the last `ms`. */
  readonly quietFor: (ms: number) => Effect.Effect<boolean>
}

export const openScriptServer = (): Effect.Effect<ScriptServer, UdpError, Scope.Scope> =>
  Effect.gen(function*() {
    const socket = yield* makeUdpSocket({ host: "127.0.0.1" })
    const opened = performance.now()
    const heard: Array<Heard> = []
    let read = 0
    let client: Endpoint | undefined
    const { arrived, arrivalOrTime } = makeArrivals()
    yield* socket.onDatagram((datagram) => {
      client = { address: datagram.address, port: datagram.port }
      heard.push({ text: latin1(datagram.data), at: performance.now() - opened })
      arrived()
    })
    return {
      port: socket.local.port,
      heard,
      next: (what, ms, wanted = () => true) =>
        Effect.gen(function*() {
          const deadline = performance.now() + ms
          const skipped: Array<string> = []
          for (;;) {
            while (read < heard.length) {
              const each = heard[read++]!
              if (wanted(each.text)) return each
              skipped.push(escaped(each.text, 40))
            }
            const left = deadline - performance.now()
            if (left <= 0) return yield* new Silence({ probe: "the client", what, ms, instead: skipped })
            yield* arrivalOrTime(left)
          }
        }),
      send: (...texts) =>
        Effect.forEach(texts, (text) => (client ? socket.send(Buffer.from(text, "latin1"), client) : Effect.void), { discard: true }),
      quietFor: (ms) => Effect.sync(() => heard.length === 0 || performance.now() - opened - heard.at(-1)!.at >= ms)
    }
  })
