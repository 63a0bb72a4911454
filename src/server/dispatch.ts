import type { ClientId, Envelope, GameState, Request, Transition, Viewer } from "../core/state.js"
import { type Dialect, gameOverMessage, summaryText } from "../protocol/dialect.js"
import { encodeServerMessage, type ServerMessage } from "../protocol/messages.js"
import { noticeMessage } from "../protocol/notices.js"
import type { LastWords } from "./lastWords.js"
import type { Took } from "../core/life.js"
import type { Peer } from "./peer.js"
import { DisplayBuffers } from "./views.js"
import { standings } from "../core/state.js"

/** What the server says of its own accord at the end: GAMEOVER, or a QUIT no one asked for. */
const isLastWord = ({ notice }: Envelope) =>
  notice._tag === "GameOver" ||
  (notice._tag === "Quit" && (notice.reason === "ShutDown" || notice.reason === "SpectatorReplaced" || notice.reason === "Silent"))

export interface DispatcherOptions {
  readonly dialect: Dialect
  /** Whether every UDP send has left: see `Peer.keepsBytes`. */
  readonly allSent: () => boolean
  readonly lastWords: LastWords
  /** Told of each request the game took, after its notices went out. */
  readonly took: (event: Took) => void
}

/**
 * The game's state, every viewer's DISPLAY buffer and every client's peer, and nothing
 * else: a transition comes in, the state and the buffers move on, and its notices go out,
 * each DISPLAY straight from the viewer's patched buffer. Synchronous, so that a keystroke
 * is handled in the socket's own callback.
 */
export class Dispatcher {
  private current: GameState
  private readonly buffers: DisplayBuffers
  /** Where each client that joined is reached. */
  private readonly peers = new Map<ClientId, Peer>()
  /** The GAMEOVER as sent, to answer whoever asks after the end. */
  private gameOverText: string | undefined

  constructor(state: GameState, private readonly options: DispatcherOptions) {
    this.current = state
    this.buffers = new DisplayBuffers(state)
  }

  get state(): GameState {
    return this.current
  }

  /** The DISPLAY datagram `viewer` would get now. Shared: do not change it. */
  display(viewer: Viewer): Uint8Array {
    return this.buffers.display(viewer)
  }

  peerOf(client: ClientId): Peer | undefined {
    return this.peers.get(client)
  }

  /** A client that can never be reached again (a closed page): nothing of it is kept. */
  forget(client: ClientId): void {
    this.peers.delete(client)
  }

  send(peer: Peer, message: ServerMessage): void {
    peer.send(encodeServerMessage(message))
  }

  /** A request the game took from `peer`: a client let in is remembered, and the notices go out. */
  took(peer: Peer, request: Request, transition: Transition): void {
    if (request._tag !== "Key") {
      this.peers.set(peer.id, peer)
      this.options.lastWords.admitted(peer.id)
    }
    this.deliver(transition)
    this.options.took({ _tag: "Took", client: peer.id, request, transition })
  }

  /** Makes the transition's state current and sends its notices. */
  deliver(transition: Transition): void {
    if (transition.state === this.current && transition.notices.length === 0) return
    this.current = transition.state
    // In place when every earlier DISPLAY has left: no copy, no allocation per keystroke.
    this.buffers.advance(transition, { reuse: this.options.allSent() })
    for (const envelope of transition.notices) {
      const peer = this.peers.get(envelope.to)
      if (!peer) continue
      const datagram = this.datagramFor(envelope, peer)
      const { notice } = envelope
      if (notice._tag === "Quit" || notice._tag === "GameOver") {
        this.options.lastWords.say(peer, datagram, { repeat: isLastWord(envelope), quit: notice._tag === "Quit" })
      } else {
        peer.send(datagram)
      }
    }
  }

  /** After the end, a client of this game that asks anything learns how it ended. */
  remind(peer: Peer): void {
    if (this.gameOverText !== undefined && this.peers.has(peer.id)) peer.send(this.gameOverText)
  }

  private datagramFor({ notice, viewer }: Envelope, peer: Peer): Uint8Array | string {
    switch (notice._tag) {
      case "Display": {
        const display = this.buffers.display(viewer)
        return peer.keepsBytes ? display.slice() : display
      }
      case "GameOver":
        return this.gameOverText ??= encodeServerMessage(gameOverMessage(this.options.dialect, summaryText(standings(this.current))))
      default:
        return encodeServerMessage(noticeMessage(notice))
    }
  }
}
