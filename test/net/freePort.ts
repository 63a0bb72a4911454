import dgram from "node:dgram"

/** A UDP port that was free a moment ago, for a program that must be told its port. */
export const freeUdpPort = () =>
  new Promise<number>((resolve) => {
    const probe = dgram.createSocket("udp4")
    probe.bind(0, "127.0.0.1", () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
