import { Either } from "effect"
import { isIPv4, isIPv6 } from "node:net"
import { WebError } from "./error.js"

/** Where the web server listens. */
export interface WebAddress {
  readonly host: string
  readonly port: number
}

/** Loopback unless told otherwise: a game on a laptop is not offered to the whole café. */
export const defaultWebHost = "127.0.0.1"

const usage = "write [HOST:]PORT, e.g. 8080, 0.0.0.0:8080 or [::1]:8080"

/** `part` of `text` is wrong: quoted once, and `text` too only when it says more. */
const bad = (text: string, part: string, why: string) =>
  Either.left(
    new WebError({
      reason: "BadAddress",
      message: `--web — ${JSON.stringify(part)}${part === text ? "" : ` in ${JSON.stringify(text)}`} ${why}; ${usage}`
    })
  )

const parsePort = (text: string): number | undefined => {
  if (!/^\d{1,5}$/.test(text)) return undefined
  const port = Number(text)
  return port <= 65535 ? port : undefined
}

/**
 * Reads `--web`'s value strictly: a port alone (on `defaultWebHost`), or an IPv4 address,
 * `localhost` or a bracketed IPv6 address, a colon and a port. 0 picks a free port. No
 * host names besides `localhost`: listening on a name that resolves elsewhere surprises.
 */
export const parseWebAddress = (text: string, defaultHost = defaultWebHost): Either.Either<WebAddress, WebError> => {
  if (text.trim() !== text || text === "") return bad(text, text, "is no address")
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(text)
  const split = bracketed ? [bracketed[1]!, bracketed[2]!] : text.split(":")
  if (split.length > 2) return bad(text, text, "has an IPv6 address, which goes in brackets")
  const [hostText, portText] = split.length === 1 ? [undefined, split[0]!] : [split[0]!, split[1]!]
  const port = parsePort(portText)
  if (port === undefined) return bad(text, portText, "is not a port (0 to 65535)")
  if (hostText === undefined) return Either.right({ host: defaultHost, port })
  const valid = bracketed ? isIPv6(hostText) : isIPv4(hostText) || hostText === "localhost"
  if (!valid) return bad(text, hostText, "is not an IP address")
  return Either.right({ host: hostText, port })
}

/** The page's address as a browser on this machine reaches it: an unspecified host means loopback. */
export const pageUrl = (host: string, port: number): string => {
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host
  return `http://${isIPv6(reachable) ? `[${reachable}]` : reachable}:${port}/`
}

/** Whether only this machine can reach `host`: then the server also refuses foreign Host headers. */
export const isLoopback = (host: string): boolean =>
  host === "localhost" || host === "::1" || (isIPv4(host) && host.startsWith("127."))
