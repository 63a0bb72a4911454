import { Either } from "effect"
import { isIPv4, isIPv6 } from "node:net"
import { hostname, networkInterfaces } from "node:os"
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
      message: `${JSON.stringify(part)}${part === text ? "" : ` in ${JSON.stringify(text)}`} ${why}; ${usage}`
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

/** The addresses a friend on the same network can open, when the server listens on every interface. */
export const lanUrls = (host: string, port: number): ReadonlyArray<string> => {
  if (host !== "0.0.0.0" && host !== "::") return []
  return Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    // A link-local IPv6 address needs a zone a browser cannot take in a URL.
    .filter(({ address, family, internal }) => !internal && (family === "IPv4" || (host === "::" && !address.startsWith("fe80:"))))
    .map(({ address }) => pageUrl(address, port))
}

/** A name given with `--web-name`: a DNS name, as a browser would put it in the Host header. */
export const parseWebName = (text: string): Either.Either<string, WebError> => {
  const name = text.toLowerCase().replace(/\.$/, "")
  return /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(name)
    ? Either.right(name)
    : Either.left(
      new WebError({ reason: "BadName", message: `${JSON.stringify(text)} is not a host name; write a name such as nuggets.example.org` })
    )
}

/** This machine's own names, as a browser on the network may call it. */
export const machineNames = (): ReadonlyArray<string> => {
  const name = hostname().toLowerCase()
  const short = name.split(".")[0]!
  return [...new Set([name, short, `${short}.local`])]
}

/**
 * Whether a request's Host header names this server in a way no other site can: no Host
 * (HTTP/1.0: not a browser), an IP literal, `localhost` (and its subdomains, which browsers
 * keep on this machine), or one of `names` (this machine's, and those given with
 * `--web-name`). A page from a site whose name was made to resolve here (DNS rebinding)
 * carries that site's name, and is refused. The port is not checked: a proxy may change it.
 */
export const hostAllowed = (header: string | undefined, names: ReadonlySet<string>): boolean => {
  if (header === undefined) return true
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(header)
  if (bracketed) return isIPv6(bracketed[1]!)
  const plain = /^([^:[\]]+)(?::\d{1,5})?$/.exec(header)
  if (!plain) return false
  const name = plain[1]!.toLowerCase().replace(/\.$/, "")
  return isIPv4(name) || name === "localhost" || name.endsWith(".localhost") || names.has(name)
}
