import { Layer } from "effect"
import { udpLayer } from "../net/nodeUdp.js"
import type { UdpError, UdpOptions, UdpSocket } from "../net/udp.js"
import type { Dialect } from "../protocol/dialect.js"
import type { RecordingError } from "../recording/writer.js"
import { GameHost, gameHostLayer, type HostedGame } from "../server/host.js"
import { recorderLayer } from "../server/recorder.js"
import { udpLoopLayer } from "../server/udpLoop.js"
import type { WebError } from "../web/error.js"
import { webLayer, type WebOptions } from "../web/live.js"

/** A game this program hosts: the game, where it listens, and what goes with it. */
export interface Hosting {
  readonly game: HostedGame & { readonly dialect: Dialect }
  readonly udp: UdpOptions
  /** `--record FILE`: the game recorded as it is played. */
  readonly record?: { readonly path: string; readonly overwrite: boolean }
  /** `--web`: the game's page (`WebPage`). */
  readonly web?: WebOptions
}

/**
 * The Layers of a hosted game, built in this order: the UDP socket, the game host, what
 * watches the game (the recorder, the web page), and last the UDP loop, so that no
 * datagram is taken before everything that watches the game is listening.
 */
export const hostingLayer = (hosting: Hosting): Layer.Layer<GameHost | UdpSocket, UdpError | RecordingError | WebError> => {
  const { game, record, web } = hosting
  const watchers = Layer.mergeAll(
    record === undefined
      ? Layer.empty
      : recorderLayer({ path: record.path, overwrite: record.overwrite, seed: game.seed, dialect: game.dialect, map: game.map }),
    web === undefined ? Layer.empty : webLayer(web)
  )
  return udpLoopLayer.pipe(
    Layer.provideMerge(watchers),
    Layer.provideMerge(gameHostLayer(game)),
    Layer.provideMerge(udpLayer(hosting.udp))
  )
}
