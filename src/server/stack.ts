import { type Effect, Layer, type Scope } from "effect"
import type { UdpSocket } from "../net/udp.js"
import type { Dialect } from "../protocol/dialect.js"
import type { LineFile, RecordingError } from "../recording/lines.js"
import { type LiveGame, liveGameLayer, type ServedGame } from "./liveGame.js"
import { recorderLayer } from "./recorder.js"
import { udpLoopLayer } from "./udpLoop.js"

/** What one hosted game is made of, below what it is served by: the game, its socket, its recording, its web side. */
export interface GameStack<S, W, E, R> {
  readonly game: ServedGame & { readonly dialect: Dialect }
  /** The game's UDP socket. */
  readonly socket: Layer.Layer<UdpSocket, E, R>
  /** The game recorded as it is played, to where `to` opens. */
  readonly record?: { readonly to: Effect.Effect<LineFile, RecordingError, Scope.Scope> }
  /** The game on the web (its own page, or its routes on a lobby's server). */
  readonly web?: Layer.Layer<W, S, LiveGame>
}

/**
 * The Layers of a hosted game, built in this order: the UDP socket, the game host, what
 * watches the game (the recorder, the web side), and last the UDP loop, so that no
 * datagram is taken before everything that watches the game is listening. Released in
 * reverse: the socket last, once the last words are out. The one home of that order, for
 * `serve` and `play` (a game a process) and for each game of `nuggets host`.
 */
export const gameStack = <S = never, W = never, E = never, R = never>(
  stack: GameStack<S, W, E, R>
): Layer.Layer<LiveGame | UdpSocket | W, E | S | RecordingError, R> => {
  const { game, record, web } = stack
  const watchers = Layer.mergeAll(
    record === undefined
      ? Layer.empty
      : recorderLayer({ to: record.to, seed: game.seed, dialect: game.dialect, map: game.map }),
    web ?? (Layer.empty as unknown as Layer.Layer<W, S, LiveGame>)
  )
  return udpLoopLayer.pipe(
    Layer.provideMerge(watchers),
    Layer.provideMerge(liveGameLayer(game)),
    Layer.provideMerge(stack.socket)
  )
}
