import type { ClientId } from "../core/state.js"

/** A client as the server reaches it: over UDP, or over a browser's WebSocket. */
export interface Peer {
  /** How the core tells clients apart: an address and port, or a WebSocket's number. */
  readonly id: ClientId
  /** Sends one message. Never fails: a client that went away is like a datagram lost. */
  readonly send: (data: Uint8Array | string) => void
  /**
   * Whether `send` may still read the bytes it was given after it returns, unknown to
   * `LiveGameOptions.allSent`: such a peer gets its own copy of each DISPLAY. (UDP sends
   * leave later too, but the host waits for `allSent` before changing a buffer in place.)
   */
  readonly keepsBytes: boolean
}
