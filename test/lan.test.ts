import { describe, expect, it } from "vitest"
import type { NetworkInterfaceInfo } from "node:os"
import { lanAddress } from "../src/net/lan.js"

const address = (family: "IPv4" | "IPv6", value: string, internal = false): NetworkInterfaceInfo =>
  ({ address: value, family, internal, netmask: "", mac: "00:00:00:00:00:00", cidr: null, ...(family === "IPv6" ? { scopeid: 0 } : {}) }) as NetworkInterfaceInfo

describe("the address friends join", () => {
  const interfaces = {
    lo: [address("IPv4", "127.0.0.1", true), address("IPv6", "::1", true)],
    eth0: [address("IPv6", "fe80::1"), address("IPv4", "192.168.1.20")]
  }

  it("is this machine's address on the network, not a host name that may resolve only here", () => {
    expect(lanAddress("0.0.0.0", interfaces, "laptop")).toBe("192.168.1.20")
    expect(lanAddress("::", interfaces, "laptop")).toBe("192.168.1.20")
  })

  it("is the address the server listens on when it is a particular one", () => {
    expect(lanAddress("127.0.0.1", interfaces, "laptop")).toBe("127.0.0.1")
    expect(lanAddress("192.168.1.20", interfaces, "laptop")).toBe("192.168.1.20")
  })

  it("falls back to an IPv6 address on an IPv6 server, then to the host name", () => {
    expect(lanAddress("::", { lo: interfaces.lo, eth0: [address("IPv6", "fe80::1"), address("IPv6", "2001:db8::5")] }, "laptop")).toBe("2001:db8::5")
    expect(lanAddress("0.0.0.0", { lo: interfaces.lo }, "laptop")).toBe("laptop")
  })
})
