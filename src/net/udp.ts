import { Context, Data, type Effect, type Scope, type Stream } from "effect"

/**
 * The UDP socket as a service: what the game needs of one, with no word of how a system
 * provides it (`nodeUdp.ts` does, with `node:dgram`).
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
 * What a datagram handler gives back: nothing when it is done, or an Effect that finishes
 * its work (a log line, a later step), which the socket runs in a fiber of its own scope.
 */
export type HandlerResult<R> = Effect.Effect<void, never, R> | void

/**
 * One bound UDP socket. Datagrams come in as a Stream (`incoming`) or, on a hot path, to a
 * synchronous handler (`onDatagram`). Sending never fails the caller: a client that went
 * away must not stop the game, and UDP may lose any datagram anyway.
 */
export class UdpSocket extends Context.Tag("nuggets/UdpSocket")<UdpSocket, {
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
}>() {}
