/**
 * The I/O floor: a stand-in server with no game logic. It answers PLAY and SPECTATE as a
 * server would, and for each KEY sends every joined client a precomputed DISPLAY of the
 * real size (the map itself), one datagram each. What it costs per key is what the
 * sockets cost: the least any Node server of this game could spend.
 *
 *   node --import tsx scripts/bench/floor-server.ts maps/main.txt
 */
import * as dgram from "node:dgram"
import { readFileSync } from "node:fs"

const mapFile = process.argv[2]
if (!mapFile) {
  process.stderr.write("usage: floor-server.ts map.txt\n")
  process.exit(1)
}
const lines = readFileSync(mapFile, "utf8").replace(/\r?\n$/, "").split(/\r?\n/)
const rows = lines.length
const cols = Math.max(...lines.map((line) => line.length))
const grid = lines.map((line) => line.padEnd(cols, " ") + "\n").join("")
const maxClients = 27
const displays = Array.from({ length: maxClients }, () => Buffer.from(`DISPLAY\n${grid}`, "latin1"))

interface Peer {
  readonly address: string
  readonly port: number
}
const peers: Array<Peer> = []
const socket = dgram.createSocket("udp4")
const K = 0x4b
const P = 0x50
const S = 0x53

socket.on("message", (data, from) => {
  const first = data[0]
  if (first === K) {
    for (let i = 0; i < peers.length; i++) socket.send(displays[i]!, peers[i]!.port, peers[i]!.address)
    return
  }
  if ((first !== P && first !== S) || peers.length >= maxClients) return
  const index = peers.length
  peers.push({ address: from.address, port: from.port })
  if (first === P) socket.send(`OK ${String.fromCharCode(0x41 + index)}`, from.port, from.address)
  socket.send(`GRID ${rows} ${cols}`, from.port, from.address)
  socket.send("GOLD 0 0 250", from.port, from.address)
  socket.send(displays[index]!, from.port, from.address)
})

socket.bind(0, process.argv[3] ?? "127.0.0.1", () => {
  socket.setRecvBufferSize(4 * 2 ** 20)
  process.stdout.write(`Ready to play, waiting at port ${socket.address().port}\n`)
})
process.on("SIGTERM", () => socket.close(() => process.exit(0)))
process.on("SIGINT", () => socket.close(() => process.exit(0)))
