import { Effect, type Scope } from "effect"
import { elapsedFrom } from "../../net/clock.js"
import { makeInbox, type Silence } from "../../net/inbox.js"
import { type Endpoint, Udp, type UdpError } from "../../net/udp.js"
import { latin1 } from "../../protocol/transcript.js"
import { bytesOf, escaped } from "../conformance/escaping.js"

/**
 * A server played by a script, on a loopback UDP socket: it records what the client sends
 * and sends it whatever the script says, well formed or not, to the address it last heard
 * from. The server side of `check client`, and the tests' stand-in for a server.
 */

export interface Heard {
  readonly text: string
  /** Milliseconds since the server opened, by Effect's `Clock`. */
  readonly at: number
  /** The client that sent it. */
  readonly from: Endpoint
}

/**
 * Answers each datagram as it comes, before anyone reads it: `reply` sends to its sender,
 * text byte for byte (latin1) or bytes.
 */
export type Script = (text: string, reply: (...texts: ReadonlyArray<string | Uint8Array>) => void, from: Endpoint) => void

export interface ScriptServer {
  readonly port: number
  /** Everything the client sent, in order. */
  readonly heard: ReadonlyArray<Heard>
  /** The first unread datagram for which `wanted` holds, skipping the unread ones before it; `Silence` after `ms`. */
  readonly next: (what: string, ms: number, wanted?: (text: string) => boolean) => Effect.Effect<Heard, Silence>
  /** Every unread datagram now, without waiting: they are read. */
  readonly unread: Effect.Effect<ReadonlyArray<Heard>>
  /** Sends each text to the client (the sender of the latest datagram), in order. */
  readonly send: (...texts: ReadonlyArray<string>) => Effect.Effect<void>
  /** Whether nothing came from the client in the last `ms`. */
  readonly quietFor: (ms: number) => Effect.Effect<boolean>
}


export const openScriptServer = (script?: Script): Effect.Effect<ScriptServer, UdpError, Scope.Scope | Udp> =>
  Effect.gen(function*() {
    const udp = yield* Udp
    const socket = yield* udp.open({ host: "127.0.0.1" })
    const clock = yield* Effect.clock
    const sinceOpened = elapsedFrom(clock)
    const heard: Array<Heard> = []
    const inbox = yield* makeInbox<Heard>({ from: "the client", describe: (each) => escaped(each.text, 40) })
    let client: Endpoint | undefined
    yield* socket.onDatagram((datagram) => {
      const from = { address: datagram.address, port: datagram.port }
      const each = { text: latin1(datagram.data), at: sinceOpened(), from }
      client = from
      heard.push(each)
      inbox.put(each)
      script?.(each.text, (...texts) => texts.forEach((text) => socket.sendNow(bytesOf(text), from)), from)
    })
    return {
      port: socket.local.port,
      heard,
      next: (what, ms, wanted = () => true) => inbox.next(what, ms, (each) => wanted(each.text)),
      unread: inbox.unread,
      send: (...texts) =>
        Effect.forEach(texts, (text) => (client ? socket.send(bytesOf(text), client) : Effect.void), { discard: true }),
      quietFor: (ms) => Effect.sync(() => heard.length === 0 || sinceOpened() - heard.at(-1)!.at >= ms)
    }
  })
