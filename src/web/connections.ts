import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { type IncomingMessage, Server, type ServerOptions, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"

/** What the server knows of one TCP connection. */
interface Connection {
  /** A request is being answered on it (or it was upgraded): the next request must wait for that. */
  busy: boolean
}

const ignore = () => {}

/** What Node would answer a request it cannot read, with a line saying why. */
const unreadable: Readonly<Record<string, readonly [status: number, reason: string, text: string]>> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large", "The request's headers are too large."],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, "Payload Too Large", "The request's chunk extensions are too large."],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "The request took too long to arrive."]
}
const notHttp = [400, "Bad Request", "This is not an HTTP request this server can read."] as const

/** Node's own answer to a request it cannot parse, with a short text as every other refusal has. */
const answerUnreadable = (error: NodeJS.ErrnoException, socket: Duplex) => {
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  if (error.code !== "ECONNRESET" && socket.writable && (!inFlight || !inFlight.headersSent)) {
    const [status, reason, text] = unreadable[error.code ?? ""] ?? notHttp
    const body = `${text}\n`
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\n` +
        `Connection: close\r\n\r\n${body}`
    )
  }
  socket.destroy()
}

/**
 * Node's HTTP server with the connections held to what the web side can answer, before
 * @effect/platform sees any request. Everything here happens in Node's own synchronous
 * events, where the platform gives no hook.
 *
 * - **Every socket has an error listener, from connection to close.** Node removes its own
 *   when a request asks for an upgrade; @effect/platform-node's upgrade handler then writes
 *   the ordinary reply of any route that does not upgrade (a 404, the page, a refusal) on
 *   that socket with none. A reset from the client was then an unhandled `error` that ended
 *   the process. This is the one place that works around it (see the hostile-client tests).
 * - **One request at a time per connection.** A request that arrives before the reply to
 *   the one before it is done (pipelining) cuts the connection off. Node would queue its
 *   reply behind the earlier one, forever behind a watcher's endless stream, and the
 *   platform's fiber for it would wait for a write that never comes, holding its body and
 *   its slot. No browser pipelines.
 * - **The open sockets**, so that closing the server can end the long-lived ones at once.
 * - **A request Node cannot read** is answered as Node would (400, 408, 413, 431), with a
 *   line of text like every other refusal.
 */
export class GatedServer extends Server {
  private readonly open = new Map<Socket, Connection>()

  constructor(options: ServerOptions) {
    super(options)
    this.on("clientError", answerUnreadable)
  }

  override emit(event: string, ...args: Array<any>): boolean {
    if (event === "connection") this.opened(args[0] as Socket)
    else if (event === "request" && !this.claim(args[0] as IncomingMessage, args[1] as ServerResponse)) return true
    else if (event === "upgrade" && !this.claimForGood(args[1] as Socket)) return true
    return super.emit(event, ...args)
  }

  /** Ends every connection now: the server's own close would wait for the endless ones. */
  destroyAll(): void {
    for (const socket of this.open.keys()) socket.destroy()
  }

  private opened(socket: Socket): void {
    socket.on("error", ignore)
    this.open.set(socket, { busy: false })
    socket.once("close", () => this.open.delete(socket))
  }

  private claim(request: IncomingMessage, response: ServerResponse): boolean {
    const connection = this.open.get(request.socket as Socket)
    if (connection === undefined || connection.busy) {
      request.socket.destroy()
      return false
    }
    connection.busy = true
    const done = () => (connection.busy = false)
    response.once("finish", done)
    response.once("close", done)
    return true
  }

  /** An upgraded connection carries no more HTTP requests. */
  private claimForGood(socket: Socket): boolean {
    const connection = this.open.get(socket)
    if (connection === undefined || connection.busy) {
      socket.destroy()
      return false
    }
    connection.busy = true
    return true
  }
}

/** Succeeds once the connection `request` came on has closed, however it closed. */
const connectionClosed = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const socket = NodeHttpServerRequest.toIncomingMessage(request).socket
    if (socket.destroyed) return resume(Effect.void)
    const closed = () => resume(Effect.void)
    socket.once("close", closed)
    return Effect.sync(() => socket.off("close", closed))
  })

/** The answer to a request whose connection is gone: it is never written, so nothing waits on it. */
const gone = HttpServerResponse.empty({ status: 499 })

/**
 * A request lasts no longer than its connection: handling it, its reply included, ends
 * when the connection closes, however it closes (reset, timeout, half-open, an upgrade
 * that never completed), and whatever the handling holds in the request's scope (a
 * watcher's place, a player's connection) is given back. The platform interrupts a request
 * only when Node says its reply closed unfinished, which Node does not say of an upgrade
 * the WebSocket library refused; and an interruption cannot end a wait the platform made
 * uninterruptible (the WebSocket handshake's). A race with the handling disconnected can:
 * the request's scope closes with the connection whatever the handling is doing.
 */
export const untilConnectionCloses = <E, R>(
  handle: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.raceFirst(
      // Disconnected: the race need not wait for the handling to end, which it may never do.
      Effect.interruptible(Effect.disconnect(handle)),
      Effect.interruptible(connectionClosed(request)).pipe(Effect.as(gone))
    ))
