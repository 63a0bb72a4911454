import { Duration, Effect, Layer } from "effect"
import type { ClientId } from "../core/state.js"
import { type Endpoint, UdpSocket } from "../net/udp.js"
import { LiveGame, type GameResult } from "./liveGame.js"
import type { Peer } from "./peer.js"

/** The shell's name for a UDP client: its address and port. */
const clientKey = (from: Endpoint): ClientId =>
  from.address.includes(":") ? `[${from.address}]:${from.port}` : `${from.address}:${from.port}`

/**
 * The game over UDP, for as long as the program runs: each datagram is handed to the game
 * host as it arrives, in the socket's own callback (one at a time and in order, like a loop
 * over a stream, but without a fiber hand-off per datagram, which measured at half the
 * server's time per keystroke).
 */
export const udpLoopLayer: Layer.Layer<never, never, LiveGame | UdpSocket> = Layer.scopedDiscard(
  Effect.gen(function*() {
    const socket = yield* UdpSocket
    const host = yield* LiveGame
    /** One peer per address, made once: the same few clients send thousands of datagrams. */
    const peers = new Map<string, Peer>()
    const peerAt = (from: Endpoint): Peer => {
      const id = clientKey(from)
      let peer = peers.get(id)
      if (peer === undefined) {
        const to = { address: from.address, port: from.port }
        peer = { id, send: (data) => socket.sendNow(data, to), keepsBytes: false }
        if (peers.size >= 65536) peers.clear()
        peers.set(id, peer)
      }
      return peer
    }
    yield* socket.onDatagram((datagram) => host.receive(peerAt(datagram), datagram.data))
  })
)

/**
 * The game, played to its end: its result, with the summary logged. Interrupted (SIGINT,
 * SIGTERM, the end of `nuggets play`), it first tells every client to quit.
 */
export const gameOver: Effect.Effect<GameResult, never, LiveGame> = Effect.gen(function*() {
  const host = yield* LiveGame
  const result = yield* host.finished.pipe(Effect.onInterrupt(() => host.shutDown))
  yield* Effect.forEach(result.summary.trimEnd().split("\n"), (line) => Effect.logInfo(`game over: ${line}`))
  return result
})

/** Long enough for a client that lost every GAMEOVER to ask again; well under the 5 s a CS50 checker waits. */
export const defaultLinger = Duration.seconds(2)

/** After the end: every copy of the last words sent, then `linger` more, answering latecomers with GAMEOVER. */
export const lingerAfterGame = (linger: Duration.DurationInput = defaultLinger): Effect.Effect<void, never, LiveGame> =>
  Effect.flatMap(LiveGame, (host) => host.lastWordsSent).pipe(Effect.zipRight(Effect.sleep(linger)))
