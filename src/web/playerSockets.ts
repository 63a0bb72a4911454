import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Socket from "@effect/platform/Socket"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Duration, Effect, type Scope } from "effect"
import type { Socket as NetSocket } from "node:net"
import { type LiveGame, receiveNow } from "../server/liveGame.js"
import { refusal } from "./headers.js"
import { Outbox } from "./outbox.js"

export interface PlayerSocketOptions {
  /** Players' WebSockets open at once (the game itself takes 26 players). */
  readonly maxConnections: number
  /** The largest message a page may send; a larger one closes its socket (1009). */
  readonly maxMessageBytes: number
  /** A socket not in the game this long after it opened is closed (1008): idle ones must not use up the connections. */
  readonly joinWithin: Duration.DurationInput
}

export const defaultPlayerSocketOptions: PlayerSocketOptions = {
  maxConnections: 64,
  maxMessageBytes: 1024,
  joinWithin: Duration.seconds(30)
}

/** Bytes waiting to go to a page beyond which its messages wait in its outbox (DISPLAYs: only the newest). */
const holdAbove = 256 * 1024
/** Bytes waiting beyond which the page is not reading at all: it is cut off. */
const cutOffAbove = 4 * 1024 * 1024
/** How often a held-back page is looked at again. */
const holdPoll = Duration.millis(50)
/**
 * Bytes a page may send that make no complete message yet. The platform's WebSocket server
 * keeps the WebSocket library's limit, 100 MB for one message, and takes no option: this
 * cuts a sender off long before.
 */
const maxUnfinishedBytes = 16 * 1024
/** What a WebSocket frame from a page adds to a message of `length` bytes: 2, a longer length if needed, the mask. */
const frameHeaderBytes = (length: number) => 2 + (length < 126 ? 0 : length < 65536 ? 2 : 8) + 4

const encoder = new TextEncoder()
const quitKey = encoder.encode("KEY Q")

/** Whether a browser's request comes from a page of this server: any site could open a WebSocket to it otherwise. */
const sameOrigin = (headers: Readonly<Record<string, string | undefined>>): boolean => {
  const origin = headers["origin"]
  if (origin === undefined) return true // not a browser: nothing to forge
  return origin === `http://${headers["host"]}` || origin === `https://${headers["host"]}`
}

/**
 * All that the WebSocket library would refuse, refused here first with a reason: an
 * upgrade it refuses never completes, and the platform waits for it for good (only
 * `untilConnectionCloses` then ends the request, leaving that wait behind).
 */
const handshakeProblem = (headers: Readonly<Record<string, string | undefined>>): string | undefined => {
  if (!/^[A-Za-z0-9+/]{22}==$/.test(headers["sec-websocket-key"] ?? "")) return "a WebSocket needs a Sec-WebSocket-Key"
  if (headers["sec-websocket-version"] !== "13") return "a WebSocket needs Sec-WebSocket-Version: 13"
  if (headers["sec-websocket-protocol"] !== undefined) return "no subprotocols here"
  return undefined
}

/**
 * The players' WebSocket: each message from the page is one protocol message (`PLAY name`,
 * `KEY k`) handed to the game as it arrives, exactly like a datagram; each message of the
 * game goes back as one WebSocket message (DISPLAY as binary, the rest as text). Closing
 * the socket quits its player. Everything a connection holds (its place among the
 * connections, its peer in the game, its sender, its listener) is a resource of its
 * request's scope, given back however the connection ends; and the end of this scope (the
 * game's) ends every connection still open.
 */
export const playerSockets = (
  game: LiveGame,
  options: PlayerSocketOptions
): Effect.Effect<{ readonly route: PlayRoute }, never, Scope.Scope> =>
  Effect.gen(function*() {
    /** The connections open now, each with its raw socket: cut when the game's scope ends. */
    const open = new Set<NetSocket>()
    let closed = false
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        for (const raw of open) raw.destroy()
      })
    )
    const route = playRoute(game, options, {
      opened: (raw) => {
        if (closed) return false
        open.add(raw)
        return true
      },
      closed: (raw) => void open.delete(raw)
    })
    return { route }
  })

type PlayRoute = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>

/** Where the connections of one game's route are kept (see `playerSockets`). */
interface Connections {
  /** A connection is to be upgraded; false if the game is gone. */
  readonly opened: (raw: NetSocket) => boolean
  readonly closed: (raw: NetSocket) => void
}

const playRoute = (game: LiveGame, options: PlayerSocketOptions, connected: Connections): PlayRoute => {
  let connections = 0
  let made = 0
  const place = Effect.acquireRelease(Effect.sync(() => connections++), () => Effect.sync(() => connections--))
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.headers["upgrade"]?.toLowerCase() !== "websocket") {
      return refusal(426, "This is the players' WebSocket.", { upgrade: "websocket" })
    }
    if (!sameOrigin(request.headers)) return refusal(403, "Only this server's page may play here.")
    const problem = handshakeProblem(request.headers)
    if (problem !== undefined) return refusal(400, `Bad WebSocket request: ${problem}.`)
    if (connections >= options.maxConnections) return refusal(503, "Too many players' connections: try again later.")
    const raw = NodeHttpServerRequest.toIncomingMessage(request).socket as NetSocket
    // The library drops a socket already half closed without a word, and the platform would wait on it for good.
    if (!raw.readable || !raw.writable) return refusal(400, "The connection closed before the WebSocket opened.")
    yield* place
    const kept = yield* Effect.acquireRelease(Effect.sync(() => connected.opened(raw)), () => Effect.sync(() => connected.closed(raw)))
    if (!kept) return refusal(410, "This game is over.")

    const socket = yield* request.upgrade.pipe(Effect.orDie)
    const write = yield* socket.writer
    const outbox = new Outbox()
    const id = `web#${++made}`
    const peer = { id, send: outbox.push, keepsBytes: true }
    const inGame = () => {
      const state = game.state()
      return state.spectator === id || state.players.some((each) => each.client === id && each.active)
    }
    // The page leaves the game (a quit, if it was in it) and the game forgets it, however the socket ends.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => inGame() ? receiveNow(game, peer, quitKey) : Effect.void).pipe(
        Effect.ensuring(Effect.sync(() => game.forget(id)))
      )
    )
    // Forked before the socket opens: `write` waits for it to open.
    yield* Effect.forkScoped(Effect.ignore(Effect.forever(Effect.gen(function*() {
      yield* outbox.waiting
      // Held back while the page is not taking what it was sent: cut off once that is too much.
      if (raw.writableLength > holdAbove) {
        if (raw.writableLength > cutOffAbove || outbox.overflowing) return raw.destroy()
        return yield* Effect.sleep(holdPoll)
      }
      // One system write for all that waits, not one per message.
      yield* Effect.acquireUseRelease(
        Effect.sync(() => raw.cork()),
        () => Effect.forEach(outbox.takeAll(), write, { discard: true }),
        () => Effect.sync(() => raw.uncork())
      )
    }))))

    // Bytes that make no message yet (see `maxUnfinishedBytes`): counted as they arrive, before
    // the WebSocket library reads them, and looked at once it has taken the messages they end.
    let unfinished = 0
    const arrived = (chunk: Buffer) => void (unfinished += chunk.length)
    const read = () => {
      if (unfinished > maxUnfinishedBytes) raw.destroy()
    }
    const listen = Effect.sync(() => {
      raw.prependListener("data", arrived)
      raw.on("data", read)
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => raw.off("data", arrived).off("data", read)))
    const onMessage = (data: string | Uint8Array): Effect.Effect<void> | void => {
      const bytes = typeof data === "string" ? encoder.encode(data) : data
      unfinished -= bytes.length + frameHeaderBytes(bytes.length)
      if (bytes.length > options.maxMessageBytes) return Effect.ignore(write(new Socket.CloseEvent(1009, "message too big")))
      return game.receive(peer, bytes)
    }
    yield* Effect.forkScoped(Effect.sleep(options.joinWithin).pipe(
      Effect.zipRight(Effect.suspend(() => inGame() ? Effect.void : write(new Socket.CloseEvent(1008, "join the game first")))),
      Effect.ignore
    ))
    // A closed tab says 1001, which the socket reports as an error: any end of the socket is the page leaving.
    // Listened to once the socket is open: the library's own listener is there by then.
    yield* socket.runRaw(onMessage, { onOpen: listen }).pipe(Effect.ignore)
    return HttpServerResponse.empty()
  })
}
