import { Effect, FiberSet, Layer, Queue, type Scope, Stream } from "effect"
import * as dgram from "node:dgram"
import * as dns from "node:dns"
import { isIP } from "node:net"
import { makeLogLimiter } from "./logLimit.js"
import {
  type BoundSocket,
  type Datagram,
  type Endpoint,
  familyOf,
  type HandlerResult,
  Udp,
  UdpError,
  type UdpFailure,
  type UdpOptions
} from "./udp.js"

/** The `Udp` service over Node's `node:dgram`. */

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

const openSocket = (options: UdpOptions = {}): Effect.Effect<BoundSocket, UdpError, Scope.Scope> =>
  Effect.gen(function*() {
    // Warnings come from the socket's callbacks, rate-limited per source (a peer that makes
    // every send fail must not flood the log), and are logged by one fiber in order.
    const limiter = makeLogLimiter()
    const clock = yield* Effect.clock
    const warnings = yield* Queue.dropping<string>(64)
    yield* Queue.take(warnings).pipe(Effect.flatMap((line) => Effect.logWarning(line)), Effect.forever, Effect.forkScoped)
    const warn = (source: string, message: string) => {
      const { held, log } = limiter.admit(source, clock.unsafeCurrentTimeMillis())
      for (const line of log ? [...held, message] : held) Queue.unsafeOffer(warnings, line)
    }
    const socket = yield* Effect.acquireRelease(
      Effect.async<dgram.Socket, UdpError>((resume) => {
        const socket = dgram.createSocket({ type: familyOf(options.host ?? options.connectTo?.address), lookup: lookupLiterals })
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
          const to = options.connectTo
          // A connected socket's closed peer is its owner's to tell (`failures`), in words of its own.
          socket.on("error", (error: NodeJS.ErrnoException) => {
            if (to === undefined || error.code !== "ECONNREFUSED") warn("socket", `socket error: ${error.message}`)
          })
          if (to === undefined) return resume(Effect.succeed(socket))
          const onConnectError = (error: Error) => {
            socket.close()
            resume(Effect.fail(new UdpError({ reason: "Connect", host: to.address, port: to.port, cause: error })))
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
    return {
      local: { address: bound.address, port: bound.port },
      incoming: Stream.asyncScoped<Datagram>(
        (emit) => listen((datagram) => void emit.single(datagram)),
        { bufferSize: options.backlog ?? 8192, strategy: "sliding" }
      ),
      onDatagram: <R>(handler: (datagram: Datagram) => HandlerResult<R>) =>
        Effect.gen(function*() {
          const run = yield* FiberSet.makeRuntime<R, void, never>()
          yield* listen((datagram) => {
            const then = handler(datagram)
            if (then !== undefined) run(then)
          })
        }),
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
    } satisfies BoundSocket
  })

const bindError = (error: Error, options: UdpOptions): UdpError => {
  const code = (error as NodeJS.ErrnoException).code
  const reason = code === "EADDRINUSE" ? "PortInUse" : code === "ENOTFOUND" || code === "EAI_AGAIN" ? "UnknownHost" : "Bind"
  return new UdpError({ reason, host: options.host ?? "0.0.0.0", port: options.port ?? 0, cause: error })
}

/** Sockets from `node:dgram`: what the program runs on. */
export const nodeUdpLayer: Layer.Layer<Udp> = Layer.succeed(Udp, Udp.of({ open: openSocket }))
