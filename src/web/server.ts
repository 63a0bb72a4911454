import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, type Scope } from "effect"
import { createServer } from "node:http"
import type { Socket } from "node:net"
import { isLoopback, pageUrl, type WebAddress } from "./address.js"
import { WebError } from "./error.js"

export interface Listening {
  /** The page's address, e.g. `http://127.0.0.1:8080/`. */
  readonly url: string
  readonly port: number
}

/** Headers for every page and feed: nothing cached, sniffed, framed or referred. */
export const safeHeaders: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

/** A request with no body needs no more than this to arrive: a slow sender is cut off. */
const requestTimeoutMs = 10_000
/** Sockets open at once, all routes together: beyond, new ones are refused by the system's backlog. */
const maxConnections = 1024

const listenFailure = (address: WebAddress, cause: unknown): WebError => {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code
  const where = `${address.host}:${address.port}`
  switch (code) {
    case "EADDRINUSE":
      return new WebError({ reason: "PortInUse", message: `${where} — cannot serve the web page: the port is in use` })
    case "EACCES":
      return new WebError({ reason: "NoPermission", message: `${where} — cannot serve the web page: permission denied` })
    case "EADDRNOTAVAIL":
      return new WebError({ reason: "BadAddress", message: `${where} — cannot serve the web page: no such address here` })
    default:
      return new WebError({ reason: "Listen", message: `${where} — cannot serve the web page: ${String((cause as Error)?.message ?? cause)}` })
  }
}

/** The Host header names this server by a loopback name: a page from elsewhere (DNS rebinding) does not. */
const loopbackHost = (header: string | undefined, port: number): boolean => {
  if (header === undefined) return false
  const name = header.startsWith("[") ? header.slice(0, header.indexOf("]") + 1) : header.split(":")[0]!
  const named = header.slice(name.length)
  return (named === "" || named === `:${port}`) && ["localhost", "127.0.0.1", "[::1]"].includes(name.toLowerCase())
}

const notFound = HttpServerResponse.text("Not found.\n", { status: 404, headers: safeHeaders })
const misdirected = HttpServerResponse.text("This server answers only to its loopback address.\n", { status: 421 })

/**
 * Serves `router` over HTTP on `address` for as long as the scope lasts. Closing the scope
 * ends every connection, the long-lived ones (watchers, players) too.
 */
export const listen = <E>(
  router: HttpRouter.HttpRouter<E, never>,
  address: WebAddress
): Effect.Effect<Listening, WebError, Scope.Scope> =>
  Effect.gen(function*() {
    const node = createServer({ requestTimeout: requestTimeoutMs, headersTimeout: requestTimeoutMs, maxHeaderSize: 8192 })
    node.maxConnections = maxConnections
    const sockets = new Set<Socket>()
    node.on("connection", (socket: Socket) => {
      sockets.add(socket)
      socket.once("close", () => sockets.delete(socket))
    })
    const server = yield* NodeHttpServer.make(() => node, { host: address.host, port: address.port }).pipe(
      Effect.mapError((error) => listenFailure(address, error.cause))
    )
    const port = server.address._tag === "TcpAddress" ? server.address.port : address.port
    // An unknown path is an answer, not an error to log.
    const routes = Effect.catchTag(router, "RouteNotFound", () => Effect.succeed(notFound))
    const guarded = isLoopback(address.host)
      ? Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        loopbackHost(request.headers["host"], port) ? routes : Effect.succeed(misdirected))
      : routes
    yield* HttpServer.serveEffect(guarded).pipe(Effect.provideService(HttpServer.HttpServer, server))
    // Runs before the server's own close, which would otherwise wait for every open stream.
    yield* Effect.addFinalizer(() => Effect.sync(() => sockets.forEach((socket) => socket.destroy())))
    return { url: pageUrl(address.host, port), port }
  })
