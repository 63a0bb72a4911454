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

/** The address of a name or an address (IPv4 first, as most servers listen there). */
export const resolveHost = (host: string) =>
  Effect.async<{ readonly address: string }, ConnectError>((resume) => {
    const name = host.replace(/^\[(.*)\]$/, "$1")
    dns.lookup(name, { order: "ipv4first" }, (error, address) => {
      resume(
        error || !address
          ? Effect.fail(new ConnectError({ reason: "UnknownHost", host, cause: error ?? "no address" }))
          : Effect.succeed({ address })
      )
    })
  })
