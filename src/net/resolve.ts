import { Data, Effect } from "effect"
import * as dns from "node:dns"

/** No game to join: the host name does not resolve (`cause` is the resolver's error). */
export class ConnectError extends Data.TaggedError("ConnectError")<{
  readonly reason: "UnknownHost"
  readonly host: string
  readonly cause: unknown
}> {
  override get message() {
    return `${this.host} — unknown host`
  }
}

/** A name or an address (IPv4 first, as most servers listen there), and its UDP family. */
export const resolveHost = (host: string) =>
  Effect.async<{ readonly address: string; readonly family: "udp4" | "udp6" }, ConnectError>((resume) => {
    const name = host.replace(/^\[(.*)\]$/, "$1")
    dns.lookup(name, { order: "ipv4first" }, (error, address, family) => {
      resume(
        error || !address
          ? Effect.fail(new ConnectError({ reason: "UnknownHost", host, cause: error ?? "no address" }))
          : Effect.succeed({ address, family: family === 6 ? "udp6" : "udp4" })
      )
    })
  })
