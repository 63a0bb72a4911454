import { Data, Effect } from "effect"
import * as dns from "node:dns"

/** No game to join: the host name does not resolve. */
export class ConnectError extends Data.TaggedError("ConnectError")<{
  readonly reason: "UnknownHost"
  readonly message: string
}> {}

/** A name or an address (IPv4 first, as most servers listen there), and its UDP family. */
export const resolveHost = (host: string) =>
  Effect.async<{ readonly address: string; readonly family: "udp4" | "udp6" }, ConnectError>((resume) => {
    const name = host.replace(/^\[(.*)\]$/, "$1")
    dns.lookup(name, { order: "ipv4first" }, (error, address, family) => {
      resume(
        error || !address
          ? Effect.fail(new ConnectError({ reason: "UnknownHost", message: `${host} — unknown host` }))
          : Effect.succeed({ address, family: family === 6 ? "udp6" : "udp4" })
      )
    })
  })
