import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Socket from "@effect/platform/Socket"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Duration, Effect, type Scope } from "effect"
import type { Socket as NetSocket } from "node:net"
import type { ClientId } from "../core/state.js"
import type { GameHost, Peer } from "../server/host.js"
import { safeHeaders } from "./server.js"

export interface PlayOptions {
  /** Players' WebSockets open at once (the game itself takes 26 players). */
  readonly maxConnections: number
  /** The largest message a page may send; a larger one closes its socket (1009). */
  readonly maxMessageBytes: number
  /** A socket not in the game this long after it opened is closed (1008): idle ones must not use up the connections. */
  readonly joinWithin: Duration.DurationInput
}

export const defaultPlayOptions: PlayOptions = { maxConnections: 64, maxMessageBytes: 1024, joinWithin: Duration.seconds(30) }

/** Bytes waiting to go to a page beyond which its DISPLAYs are held back, only the newest kept. */
const holdDisplaysAbove = 256 * 1024
/** Bytes waiting beyond which the page is not reading at all: it is cut off. */
const cutOffAbove = 4 * 1024 * 1024
/**
 * Bytes a page may send that make no complete message yet. The WebSocket library would
 * gather up to 100 MB for one message; this cuts a sender off long before.
 */
const maxUnfinishedBytes = 16 * 1024
/** The most a WebSocket frame header adds to a message (masked, 64-bit length). */
const frameHeaderBytes = 14

const encoder = new TextEncoder()
const quitKey = encoder.encode("KEY Q")

const isDisplay = (data: Uint8Array | string) => typeof data !== "string" && data[0] === 0x44 && data[1] === 0x49

/**
 * A page in the game: the host's peer, sending on the page's WebSocket without blocking the
 * game. What waits for a slow page is bounded: past a point only its newest DISPLAY is
 * kept (sent once the socket drains); a page that reads nothing at all is cut off.
 */
export class PagePeer implements Peer {
  readonly keepsBytes = true
  open = false
  private held: Uint8Array | undefined

  constructor(
    readonly id: ClientId,
    private readonly raw: Pick<NetSocket, "writableLength" | "destroy">,
    private readonly write: (data: Uint8Array | string) => void
  ) {}

  readonly send = (data: Uint8Array | string): void => {
    if (!this.open) return
    const waiting = this.raw.writableLength
    if (waiting > cutOffAbove) {
      this.raw.destroy()
    } else if (waiting > holdDisplaysAbove && isDisplay(data)) {
      this.held = data as Uint8Array
    } else {
      this.write(data)
    }
  }

  /** The page caught up: the view it missed, if any. */
  readonly drained = (): void => {
    const held = this.held
    this.held = undefined
    if (held) this.send(held)
  }
}

/** Whether a browser's request comes from a page of this server: any site could open a WebSocket to it otherwise. */
const sameOrigin = (headers: Readonly<Record<string, string | undefined>>): boolean => {
  const origin = headers["origin"]
  if (origin === undefined) return true // not a browser: nothing to forge
  return origin === `http://${headers["host"]}` || origin === `https://${headers["host"]}`
}

const refusal = (status: number, text: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(`${text}\n`, { status, headers: { ...safeHeaders, ...headers } })

/**
 * The players' WebSocket: each message from the page is one protocol message (`PLAY name`,
 * `KEY k`) handed to the game as it arrives, exactly like a datagram; each message of the
 * game goes back as one WebSocket message (DISPLAY as binary, the rest as text). Closing
 * the page quits its player.
 */
export const playRoute = (
  host: GameHost,
  options: PlayOptions
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope> => {
  let connections = 0
  let made = 0
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.headers["upgrade"]?.toLowerCase() !== "websocket") {
      return refusal(426, "This is the players' WebSocket.", { upgrade: "websocket" })
    }
    if (!sameOrigin(request.headers)) return refusal(403, "Only this server's page may play here.")
    if (connections >= options.maxConnections) return refusal(503, "Too many players' connections: try again later.")
    connections++
    yield* Effect.addFinalizer(() => Effect.sync(() => connections--))

    const socket = yield* request.upgrade.pipe(Effect.orDie)
    const write = yield* socket.writer
    // Called from the game's own synchronous code: an Exit, never a throw (a socket that is closing loses it, like a datagram).
    const writeNow = (data: Uint8Array | string | Socket.CloseEvent) => void Effect.runSyncExit(write(data))
    const raw = NodeHttpServerRequest.toIncomingMessage(request).socket
    const peer = new PagePeer(`web#${++made}`, raw, writeNow)
    let received = 0
    let consumed = 0
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received - consumed > maxUnfinishedBytes) raw.destroy()
    }
    const onMessage = (data: string | Uint8Array) => {
      const bytes = typeof data === "string" ? encoder.encode(data) : data
      consumed += bytes.length + frameHeaderBytes
      if (bytes.length > options.maxMessageBytes) return writeNow(new Socket.CloseEvent(1009, "message too big"))
      host.receive(peer, bytes)
    }
    const inGame = () => {
      const state = host.state()
      return state.spectator === peer.id || state.players.some((each) => each.client === peer.id && each.active)
    }
    let deadline: ReturnType<typeof setTimeout> | undefined
    const opened = Effect.sync(() => {
      peer.open = true
      deadline = setTimeout(() => {
        if (peer.open && !inGame()) writeNow(new Socket.CloseEvent(1008, "join the game first"))
      }, Duration.toMillis(options.joinWithin)).unref()
      raw.on("data", onData)
      raw.on("drain", peer.drained)
    })
    const closed = Effect.sync(() => {
      clearTimeout(deadline)
      peer.open = false
      raw.off("data", onData)
      raw.off("drain", peer.drained)
      if (inGame()) host.receive(peer, quitKey)
    })
    // A closed tab says 1001, which the socket reports as an error: any end of the socket is the page leaving.
    yield* socket.runRaw(onMessage, { onOpen: opened }).pipe(Effect.ignore, Effect.ensuring(closed))
    return HttpServerResponse.empty()
  })
}
