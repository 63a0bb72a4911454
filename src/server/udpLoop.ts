import { Duration, Effect, Layer, Option } from "effect"
import type { ClientId } from "../core/state.js"
import { type Endpoint, UdpSocket } from "../net/udp.js"
import type { Ending } from "../core/life.js"
import { standings } from "../core/state.js"
import { summaryText } from "../protocol/dialect.js"
import { endWords } from "../protocol/endings.js"
import { Counts, ProcessCounts } from "./counts.js"
import { LiveGame } from "./liveGame.js"
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
    const game = yield* LiveGame
    const counts = Option.getOrElse(yield* Effect.serviceOption(ProcessCounts), () => new Counts())
    /** One peer per address, made once: the same few clients send thousands of datagrams. */
    const peers = new Map<string, Peer>()
    const peerAt = (from: Endpoint): Peer => {
      const id = clientKey(from)
      let peer = peers.get(id)
      if (peer === undefined) {
        const to = { address: from.address, port: from.port }
        peer = {
          id,
          send: (data) => {
            counts.datagramsSent++
            socket.sendNow(data, to)
          },
          keepsBytes: false
        }
        if (peers.size >= 65536) peers.clear()
        peers.set(id, peer)
      }
      return peer
    }
    yield* socket.onDatagram((datagram) => {
      counts.datagramsReceived++
      return game.receive(peerAt(datagram), datagram.data)
    })
  })
)

/** How a game ended, and its summary: a line per player. */
export interface GameResult {
  readonly ending: Ending
  readonly summary: string
}

/**
 * The game, played to its end: its result, with the summary logged. Interrupted (SIGINT,
 * SIGTERM, the end of `nuggets play`), it first tells every client to quit.
 */
export const gameOver: Effect.Effect<GameResult, never, LiveGame> = Effect.gen(function*() {
  const game = yield* LiveGame
  const ending = yield* game.ended.pipe(Effect.onInterrupt(() => game.shutDown))
  const summary = summaryText(standings(ending.state))
  yield* Effect.forEach(summary.trimEnd().split("\n"), (line) => Effect.logInfo(`game ${endWords[ending._tag]}: ${line}`))
  return { ending, summary }
})

/** Long enough for a client that lost every GAMEOVER to ask again; well under the 5 s a CS50 checker waits. */
export const defaultLinger = Duration.seconds(2)

/** After the end: every copy of the last words sent, then `linger` more, answering latecomers with GAMEOVER. */
export const lingerAfterGame = (linger: Duration.DurationInput = defaultLinger): Effect.Effect<void, never, LiveGame> =>
  Effect.flatMap(LiveGame, (game) => game.lastWordsSent).pipe(Effect.zipRight(Effect.sleep(linger)))
