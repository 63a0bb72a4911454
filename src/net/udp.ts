import { Context, Data, Effect, Layer, Runtime, type Scope, Stream } from "effect"
import * as dgram from "node:dgram"
import * as dns from "node:dns"
import { isIP } from "node:net"
import { makeLogLimiter } from "./logLimit.js"

export interface Datagram {
  readonly data: Buffer
  readonly address: string
  readonly port: number
}

export interface Endpoint {
  readonly address: string
  readonly port: number
}

/** The socket could not be bound, or connected to its peer: sending never fails (see `UdpSocket`). */
export class UdpError extends Data.TaggedError("UdpError")<{
  readonly reason: "Bind" | "PortInUse" | "UnknownHost" | "Connect"
  readonly message: string
}> {}

export interface UdpOptions {
  /** 0 (the default) lets the system pick a free port. */
  readonly port?: number
  /** Address to bind; the default is every IPv4 interface (or IPv6 for `udp6`). */
  readonly host?: string
  readonly family?: "udp4" | "udp6"
  /** Datagrams held for a slow `incoming` reader; beyond that the oldest are dropped, as the network would. */
  readonly backlog?: number
  /** Kernel receive buffer to ask for, in bytes: room for bursts from many clients. */
  readonly receiveBuffer?: number
  /**
   * Talk to this peer only: the system then drops datagrams from anyone else and reports
   * an ICMP "port unreachable" from it as a failure (ECONNREFUSED).
   */
  readonly connectTo?: Endpoint
}

/** What the system reports on a socket: ECONNREFUSED when a connected peer's port is closed. */
export interface UdpFailure {
  readonly code: string | undefined
  readonly message: string
}

/**
 * One bound UDP socket. Datagrams come in as a Stream (`incoming`) or, on a hot path, to a
 * synchronous handler (`onDatagram`). Sending never fails the caller: a client that went
 * away must not stop the game, and UDP may lose any datagram anyway.
 */
export class UdpSocket extends Context.Tag("nuggets/UdpSocket")<UdpSocket, {
  readonly local: Endpoint
  /** Every datagram from now on, in order, for one reader. */
  readonly incoming: Stream.Stream<Datagram>
  /** Calls `handler` for each datagram as it arrives, until the scope closes. */
  readonly onDatagram: (handler: (datagram: Datagram) => void) => Effect.Effect<void, never, Scope.Scope>
  /** Every failure the system reports from now on (they are also logged). */
  readonly failures: Stream.Stream<UdpFailure>
  /** Sends, and logs a failure. */
  readonly send: (data: Uint8Array | string, to: Endpoint) => Effect.Effect<void>
  /** Sends at once, outside Effect, with no report of failure: the server's hot path. */
  readonly sendNow: (data: Uint8Array | string, to: Endpoint) => void
  /**
   * Whether every datagram sent so far has left. Until then the system may still read the
   * bytes given to a send, so they must not be changed.
   */
  readonly allSent: () => boolean
}>() {}

/**
 * Addresses that are already IP literals (all a server ever sends to) skip the resolver,
 * so a send leaves at once instead of on the next tick.
 */
const lookupLiterals = (
  hostname: string,
  options: dns.LookupOneOptions | number,
  callback: (error: NodeJS.ErrnoException | null, address: string, family: number) => void
) => {
  let family = literalFamily.get(hostname)
  if (family === undefined) {
    family = isIP(hostname)
    if (literalFamily.size >= 4096) literalFamily.clear()
    literalFamily.set(hostname, family)
  }
  if (family !== 0) callback(null, hostname, family)
  else dns.lookup(hostname, options as dns.LookupOneOptions, callback)
}

/** Addresses already classified: the same few clients are sent to thousands of times. */
const literalFamily = new Map<string, number>()

export const makeUdpSocket = (options: UdpOptions = {}) =>
  Effect.gen(function*() {
    // Warnings come from the socket's callbacks: logged at once, with no fiber of their own,
    // and rate-limited per source (a peer that makes every send fail must not flood the log).
    const runNow = Runtime.runSync(yield* Effect.runtime<never>())
    const limiter = makeLogLimiter()
    const clock = yield* Effect.clock
    const warn = (source: string, message: string) => {
      const { held, log } = limiter.admit(source, clock.unsafeCurrentTimeMillis())
      const lines = log ? [...held, message] : held
      if (lines.length > 0) runNow(Effect.forEach(lines, (line) => Effect.logWarning(line), { discard: true }))
    }
    const socket = yield* Effect.acquireRelease(
      Effect.async<dgram.Socket, UdpError>((resume) => {
        const socket = dgram.createSocket({ type: options.family ?? "udp4", lookup: lookupLiterals })
        const onError = (error: Error) => {
          socket.close()
          resume(Effect.fail(bindError(error, options)))
        }
        socket.once("error", onError)
        socket.bind({ port: options.port ?? 0, ...(options.host ? { address: options.host } : {}) }, () => {
          socket.off("error", onError)
          try {
            // The system may cap it (net.core.rmem_max); what it grants is still better than the default.
            socket.setRecvBufferSize(options.receiveBuffer ?? 4 * 2 ** 20)
          } catch {
            // keep the default
          }
          socket.on("error", (error) => warn("socket", `socket error: ${error.message}`))
          const to = options.connectTo
          if (to === undefined) return resume(Effect.succeed(socket))
          const onConnectError = (error: Error) => {
            socket.close()
            resume(Effect.fail(new UdpError({ reason: "Connect", message: `cannot reach ${to.address}:${to.port}: ${error.message}` })))
          }
          socket.once("error", onConnectError)
          socket.connect(to.port, to.address, () => {
            socket.off("error", onConnectError)
            resume(Effect.succeed(socket))
          })
        })
      }),
      // Datagrams still queued in the system would be lost by closing at once, and the
      // last words (QUIT on shutdown, GAMEOVER) must get out.
      (socket) =>
        Effect.async<void>((resume) => {
          const deadline = Date.now() + 1000
          const closeWhenSent = () => {
            if (socket.getSendQueueCount() > 0 && Date.now() < deadline) setTimeout(closeWhenSent, 5)
            else socket.close(() => resume(Effect.void))
          }
          closeWhenSent()
        })
    )
    const bound = socket.address()
    const connected = options.connectTo !== undefined
    // A connected socket sends to its peer only, and must not be given an address.
    const sendNow = (data: Uint8Array | string, to: Endpoint) => {
      try {
        if (connected) socket.send(data)
        else socket.send(data, to.port, to.address)
      } catch {
        // A closed socket or an impossible address: the datagram is lost, like any other.
      }
    }
    const reportFailure = (to: Endpoint) => (error: Error | null) => {
      if (error) warn(`${to.address}:${to.port}`, `send to ${to.address}:${to.port} failed: ${error.message}`)
    }
    const listen = (handler: (datagram: Datagram) => void) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const listener = (data: Buffer, info: dgram.RemoteInfo) => handler({ data, address: info.address, port: info.port })
          socket.on("message", listener)
          return listener
        }),
        (listener) => Effect.sync(() => socket.off("message", listener))
      ).pipe(Effect.asVoid)
    return UdpSocket.of({
      local: { address: bound.address, port: bound.port },
      incoming: Stream.asyncScoped<Datagram>(
        (emit) => listen((datagram) => void emit.single(datagram)),
        { bufferSize: options.backlog ?? 8192, strategy: "sliding" }
      ),
      onDatagram: listen,
      failures: Stream.async<UdpFailure>((emit) => {
        const onError = (error: NodeJS.ErrnoException) => void emit.single({ code: error.code, message: error.message })
        socket.on("error", onError)
        return Effect.sync(() => socket.off("error", onError))
      }),
      send: (data, to) =>
        Effect.sync(() => {
          try {
            if (connected) socket.send(data, reportFailure(to))
            else socket.send(data, to.port, to.address, reportFailure(to))
          } catch (error) {
            reportFailure(to)(error instanceof Error ? error : new Error(String(error)))
          }
        }),
      sendNow,
      allSent: () => socket.getSendQueueCount() === 0
    })
  })

const bindError = (error: Error, options: UdpOptions): UdpError => {
  const where = `${options.host ?? "0.0.0.0"}:${options.port ?? 0}`
  const bind = (message: string) => new UdpError({ reason: "Bind", message })
  switch ((error as NodeJS.ErrnoException).code) {
    case "EADDRINUSE":
      return new UdpError({ reason: "PortInUse", message: `port ${options.port} is already in use` })
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new UdpError({ reason: "UnknownHost", message: `${options.host} — unknown host` })
    case "EADDRNOTAVAIL":
      return bind(`cannot bind to ${where}: no such local address`)
    case "EACCES":
      return bind(`not allowed to bind to ${where}`)
    default:
      return bind(`cannot bind to ${where}: ${error.message}`)
  }
}

export const udpLayer = (options: UdpOptions = {}) => Layer.scoped(UdpSocket, makeUdpSocket(options))
