import type { NetworkInterfaceInfo } from "node:os"

/**
 * The address a friend on the same network types to reach a server bound to `bound`: the
 * address itself when it is a particular one, else this machine's first address on a
 * network (IPv4 first, as most networks at home are), else `hostName`. A host name often
 * resolves only on this machine (Debian maps it to 127.0.1.1), so it comes last.
 */
export const lanAddress = (
  bound: string,
  interfaces: Readonly<Record<string, ReadonlyArray<NetworkInterfaceInfo> | undefined>>,
  hostName: string
): string => {
  if (bound !== "0.0.0.0" && bound !== "::") return bound
  const external = Object.values(interfaces).flatMap((each) => each ?? []).filter((each) => !each.internal)
  const ipv4 = external.find((each) => each.family === "IPv4")
  if (ipv4) return ipv4.address
  const ipv6 = bound === "::" ? external.find((each) => each.family === "IPv6" && !each.address.startsWith("fe80:")) : undefined
  return ipv6?.address ?? hostName
}
