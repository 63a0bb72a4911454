import { Context, Data, Effect, Layer, Queue, Runtime, Stream } from "effect"
import * as dgram from "node:dgram"

export interface Datagram {
  readonly data: Buffer
  readonly address: string
  readonly port: number
}

export interface Endpoint {
  readonly address: string
  readonly port: number
}

export class UdpError extends Data.TaggedError("UdpError")<{
  readonly reason: "Bind" | "Send"
  readonly message: string
}> {}

export interface UdpOptions {
  /** 0 (the default) lets the system pick a free port. */
  readonly port?: number
  /** Address to bind; the default is every IPv4 interface (or IPv6 for `udp6`). */
  readonly host?: string
  readonly family?: "udp4" | "udp6"
  /** Datagrams held for a slow reader before newer ones are dropped, as the network would. */
  readonly backlog?: number
  /** Kernel receive buffer to ask for, in bytes: room for bursts from many clients. */
  readonly receiveBuffer?: number
}

/**
 * One bound UDP socket. Incoming datagrams are a Stream, consumed by one reader;
 * `send` never fails the caller: a datagram that cannot be delivered is logged, because
 * a client that went away must not stop the game.
 */
export class UdpSocket extends Context.Tag("nuggets/UdpSocket")<UdpSocket, {
  readonly local: Endpoint
  readonly incoming: Stream.Stream<Datagram>
  readonly send: (data: Uint8Array | string, to: Endpoint) => Effect.Effect<void>
  /** The same as `send`, callable outside Effect on a hot path. */
  readonly sendNow: (data: Uint8Array | string, to: Endpoint) => void
}>() {}

export const makeUdpSocket = (options: UdpOptions = {}) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    // Sends complete later (node resolves even a literal address asynchronously), so
    // closing waits for them: the last words, like QUIT on shutdown, must get out.
    let pending = 0
    let drained: (() => void) | undefined
    const sent = (to: Endpoint) => (error: Error | null) => {
      if (--pending === 0) drained?.()
      if (error) {
        Runtime.runFork(runtime)(Effect.logWarning(`send to ${to.address}:${to.port} failed: ${error.message}`))
      }
    }
    const queue = yield* Queue.dropping<Datagram>(options.backlog ?? 8192)
    const socket = yield* Effect.acquireRelease(
      Effect.async<dgram.Socket, UdpError>((resume) => {
        const socket = dgram.createSocket({ type: options.family ?? "udp4" })
        const onError = (error: Error) => {
          socket.close()
          resume(Effect.fail(new UdpError({ reason: "Bind", message: bindMessage(error, options) })))
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
          socket.on("error", (error) => Runtime.runFork(runtime)(Effect.logWarning(`socket error: ${error.message}`)))
          resume(Effect.succeed(socket))
        })
      }),
      (socket) =>
        Effect.async<void>((resume) => {
          const close = () => {
            drained = undefined
            clearTimeout(giveUp)
            socket.close(() => resume(Effect.void))
          }
          const giveUp = setTimeout(close, 1000)
          if (pending === 0) close()
          else drained = close
        }).pipe(Effect.zipRight(Queue.shutdown(queue)))
    )
    socket.on("message", (data, info) => {
      Queue.unsafeOffer(queue, { data, address: info.address, port: info.port })
    })
    const bound = socket.address()
    const sendNow = (data: Uint8Array | string, to: Endpoint) => {
      pending++
      try {
        socket.send(data, to.port, to.address, sent(to))
      } catch (error) {
        // Thrown synchronously for a bad address or a closed socket.
        sent(to)(error instanceof Error ? error : new Error(String(error)))
      }
    }
    return UdpSocket.of({
      local: { address: bound.address, port: bound.port },
      incoming: Stream.fromQueue(queue),
      send: (data, to) => Effect.sync(() => sendNow(data, to)),
      sendNow
    })
  })

const bindMessage = (error: Error, options: UdpOptions) => {
  const where = `${options.host ?? "0.0.0.0"}:${options.port ?? 0}`
  const code = (error as NodeJS.ErrnoException).code
  if (code === "EADDRINUSE") return `port ${options.port} is already in use`
  if (code === "EADDRNOTAVAIL") return `cannot bind to ${where}: no such local address`
  if (code === "EACCES") return `not allowed to bind to ${where}`
  return `cannot bind to ${where}: ${error.message}`
}

export const udpLayer = (options: UdpOptions = {}) => Layer.scoped(UdpSocket, makeUdpSocket(options))
