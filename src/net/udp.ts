import { Context, Data, Effect, Layer, type Scope, type Stream } from "effect"
import { errnoOf, errnoWords } from "./errno.js"

/**
 * UDP as services, with no word of how a system provides it (`nodeUdp.ts` does, with
 * `node:dgram`): `Udp` opens sockets, and `UdpSocket` is the one a hosted game listens on.
 * Every socket in the program is opened through `Udp`, so a test or another runtime can
 * provide its own.
 */

export interface Datagram {
  readonly data: Uint8Array
  readonly address: string
  readonly port: number
}

export interface Endpoint {
  readonly address: string
  readonly port: number
}

/**
 * The socket could not be bound, or connected to its peer (sending never fails: see
 * `BoundSocket`). `cause` is what the system reported, its code (EADDRINUSE, ...) in `code`.
 */
export class UdpError extends Data.TaggedError("UdpError")<{
  readonly reason: "Bind" | "PortInUse" | "UnknownHost" | "Connect"
  /** The address to bind to (or the peer to reach, for "Connect"), as it was asked for. */
  readonly host: string
  readonly port: number
  readonly cause: unknown
}> {
  get code(): string | undefined {
    return errnoOf(this.cause)
  }

  override get message(): string {
    const where = `${this.host}:${this.port}`
    const words = errnoWords(this.code, this.cause instanceof Error ? this.cause.message : String(this.cause))
    switch (this.reason) {
      case "PortInUse":
        return `port ${this.port} is already in use`
      case "UnknownHost":
        return `${this.host} — unknown host`
      case "Connect":
        return `cannot reach ${where}: ${words}`
      case "Bind":
        return `cannot bind to ${where}: ${words}`
    }
  }
}

export interface UdpOptions {
  /** 0 (the default) lets the system pick a free port. */
  readonly port?: number
  /**
   * Address to bind; the default is every interface of the family. The family (IPv4 or
   * IPv6) follows this address, else the peer's (`connectTo`): see `familyOf`.
   */
  readonly host?: string
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
 * What a datagram handler gives back: nothing when it is done, or an Effect that finishes
 * its work (a log line, a later step), which the socket runs in a fiber of its own scope.
 */
export type HandlerResult<R> = Effect.Effect<void, never, R> | void

/**
 * One bound UDP socket, open for as long as the scope it was opened in. Datagrams come in
 * as a Stream (`incoming`) or, on a hot path, to a synchronous handler (`onDatagram`).
 * Sending never fails the caller: a client that went away must not stop the game, and UDP
 * may lose any datagram anyway.
 */
export interface BoundSocket {
  readonly local: Endpoint
  /** Every datagram from now on, in order, for one reader. */
  readonly incoming: Stream.Stream<Datagram>
  /**
   * Calls `handler` for each datagram as it arrives, in order, until the scope closes.
   * The Effect it may return runs at once, with the services of whoever called `onDatagram`.
   */
  readonly onDatagram: <R = never>(
    handler: (datagram: Datagram) => HandlerResult<R>
  ) => Effect.Effect<void, never, Scope.Scope | R>
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
}

/**
 * The family of a socket bound to, or talking to, `address`: IPv6 for an IPv6 address,
 * else IPv4 (a name is resolved to an address before a socket is opened for it). The one
 * place the family is chosen: `Udp.open` asks it.
 */
export const familyOf = (address: string | undefined): "udp4" | "udp6" =>
  address !== undefined && address.includes(":") ? "udp6" : "udp4"

/** Every interface of the family that reaches `address`: where a socket toward it binds. */
export const anyAddressOf = (address: string): string => (familyOf(address) === "udp6" ? "::" : "0.0.0.0")

/** Opens UDP sockets: the only way into UDP for the whole program. */
export class Udp extends Context.Tag("nuggets/Udp")<Udp, {
  /** A socket bound (and connected) as `options` say, closed when the scope closes. */
  readonly open: (options?: UdpOptions) => Effect.Effect<BoundSocket, UdpError, Scope.Scope>
}>() {}

/** The socket a hosted game listens on. */
export class UdpSocket extends Context.Tag("nuggets/UdpSocket")<UdpSocket, BoundSocket>() {}

/** The hosted game's socket, bound as `options` say, for as long as the program runs. */
export const udpLayer = (options: UdpOptions = {}): Layer.Layer<UdpSocket, UdpError, Udp> =>
  Layer.scoped(UdpSocket, Effect.flatMap(Udp, (udp) => udp.open(options)))
