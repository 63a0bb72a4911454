import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, FiberSet, type Scope } from "effect"
import { causeWords, errnoOf } from "../net/errno.js"
import { makeLogLimiter } from "../net/logLimit.js"
import { hostAllowed, lanUrls, machineNames, pageUrl, type WebAddress } from "./address.js"
import { GatedServer, untilConnectionCloses } from "./connections.js"
import { WebError } from "./error.js"
import { refusal } from "./headers.js"

export interface Listening {
  /** The page's address on this machine, e.g. `http://127.0.0.1:8080/`. */
  readonly url: string
  /** Its addresses on the local network, when the server listens on every interface. */
  readonly lanUrls: ReadonlyArray<string>
  readonly port: number
}

export interface ListenOptions extends WebAddress {
  /** Host names a browser may call this server by besides this machine's own (`--web-name`). */
  readonly names?: ReadonlyArray<string>
}

/** How the server words its own refusals (no such route, a name it does not answer to, a path with `..`). */
export type Refuse = (status: number, text: string, request: HttpServerRequest.HttpServerRequest) => HttpServerResponse.HttpServerResponse

/** A line of text, as every refusal of the game's page is. */
const plainRefusal: Refuse = (status, text) => refusal(status, text)

/** A path with a `..` segment, as sent or percent-encoded: no route has one, and none is served. */
export const climbsUp = (url: string): boolean => {
  const path = url.split("?")[0]!
  return /(^|\/|\\|%2f|%5c)(\.|%2e){2}(\/|\\|%2f|%5c|$)/i.test(path)
}

/** A request with no body needs no more than this to arrive: a slow sender is cut off. */
const requestTimeoutMs = 10_000
/**
 * A connection that takes nothing of what it is sent for this long is cut off: a watcher's
 * feed says something at least every 20 s, so only a reader that stopped reading hits it.
 */
const idleTimeoutMs = 60_000
/** Sockets open at once, all routes together: beyond, new ones are closed as they come. */
const maxConnections = 2500

const listenFailure = (address: WebAddress, cause: unknown): WebError => {
  const code = errnoOf(cause)
  const reason = code === "EADDRINUSE" ? "PortInUse" : code === "EACCES" ? "NoPermission" : code === "EADDRNOTAVAIL" ? "NoSuchAddress" : "Listen"
  return new WebError({ reason, cause, message: `${address.host}:${address.port} — cannot serve the web page: ${causeWords(cause)}` })
}


/**
 * Serves `router` over HTTP on `address` for as long as the scope lasts. Every request's
 * Host header is checked (see `hostAllowed`); each request lasts no longer than its
 * connection (see `untilConnectionCloses`), and a connection carries one request at a time
 * (see `GatedServer`). Closing the scope ends every connection, the long-lived ones too.
 */
export const listen = <E>(
  router: HttpRouter.HttpRouter<E, never>,
  options: ListenOptions,
  refusals: {
    /** How its refusals are worded (a line of text unless said). */
    readonly refuse?: Refuse
    /** A path with `..` in it is refused (400) before any route: for a server whose routes take names from the path. */
    readonly climbing?: boolean
    /** Told of every request answered: its route (its path, its names as `:name`) and status, for the metrics. */
    readonly answered?: (path: string, status: number) => void
  } = {}
): Effect.Effect<Listening, WebError, Scope.Scope> =>
  Effect.gen(function*() {
    const node = new GatedServer({ requestTimeout: requestTimeoutMs, headersTimeout: requestTimeoutMs, maxHeaderSize: 8192 })
    node.maxConnections = maxConnections
    node.timeout = idleTimeoutMs
    const server = yield* NodeHttpServer.make(() => node, { host: options.host, port: options.port }).pipe(
      Effect.mapError((error) => listenFailure(options, error.cause))
    )
    const port = server.address._tag === "TcpAddress" ? server.address.port : options.port
    // Warnings about what strangers send, a few a minute of each kind, the rest counted.
    const limiter = makeLogLimiter()
    const clock = yield* Effect.clock
    const warn = (kind: string, line: string) =>
      Effect.suspend(() => {
        const { held, log } = limiter.admit(`web ${kind}`, clock.unsafeCurrentTimeMillis())
        return Effect.forEach([...held, ...(log ? [line] : [])], (each) => Effect.logWarning(each), { discard: true })
      })
    // Once listening, the server's own errors (say, no file descriptor left for a new connection) are only logged.
    const run = yield* FiberSet.makeRuntime<never>()
    node.on("error", (error) => run(warn("server", `web: the web server: ${error.message}`)))

    const names = new Set([...machineNames(), ...(options.names ?? [])])
    const refuse = refusals.refuse ?? plainRefusal
    const handled = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const named = request.headers["host"]
      if (!hostAllowed(named, names)) {
        return warn(
          "host",
          `web: refused a request for ${JSON.stringify(named?.slice(0, 100))}; serve that name with --web-name NAME`
        ).pipe(Effect.as(refuse(421, "This server does not answer to that name.", request)))
      }
      if (refusals.climbing === true && climbsUp(request.url)) return Effect.succeed(refuse(400, "A path with .. in it is never served.", request))
      return Effect.catchTag(router, "RouteNotFound", () => Effect.succeed(refuse(404, "Not found.", request)))
    })
    const answered = refusals.answered
    const app = answered === undefined ? handled : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.tap(handled, (response) => Effect.sync(() => answered(request.url.split("?")[0]!, response.status))))
    yield* HttpServer.serveEffect(app, untilConnectionCloses).pipe(Effect.provideService(HttpServer.HttpServer, server))
    // Runs before the server's own close, which would otherwise wait for every open stream.
    yield* Effect.addFinalizer(() => Effect.sync(() => node.destroyAll()))
    return { url: pageUrl(options.host, port), lanUrls: lanUrls(options.host, port), port }
  })
