// A server that dies of one datagram, for the checker's tests: it starts a real server
// (the command after --) and relays to it, and ends at once, taking the real server with it,
// when a datagram matches DEATH (a regular expression), as a C server dies of a bad pointer.
//   node fragile-server.mjs DEATH [--from-quitters] [--deafens PATTERN] -- nuggets serve MAP SEED --host 127.0.0.1
// It says its port on stdout ("fragile server at port N"), as C servers print theirs.
// With --from-quitters it is one CS50 server (cs50spring2021/nuggets-nunchuck-buccaneer:
// serverCmds.c movePlayer reads a player that leaveUser removed; leaveUser ends the game
// when no player is left): only a datagram from a player that has quit kills it, by a signal
// (SIGABRT), and it exits 0, its game over, once every player that joined has quit.
// With --deafens PATTERN it stops hearing the keys of its first player once
// a datagram matches PATTERN: its moves go wrong from then on, and the game can still be
// played to its end by others, or from the start on a fresh server.
import { spawn } from "node:child_process"
import * as dgram from "node:dgram"

const args = process.argv.slice(2)
const death = new RegExp(args[0])
const options = args.slice(0, args.indexOf("--"))
const fromQuitters = options.includes("--from-quitters")
const deafens = options.includes("--deafens") ? new RegExp(options[options.indexOf("--deafens") + 1]) : undefined
let firstPlayer
let deaf = false
const players = new Set()
const quitters = new Set()
const command = args.slice(args.indexOf("--") + 1)
const front = dgram.createSocket("udp4")
// What comes before the real server is up waits for it, as in a socket's buffer; the fatal
// datagram kills at once, up or not, as it would a C server.
const early = []
let relay = (data, from) => early.push([data, from])
let killServer = () => {}
front.on("message", (data, from) => {
  const text = data.toString("latin1")
  const who = `${from.address}:${from.port}`
  if (death.test(text) && (!fromQuitters || quitters.has(who))) {
    killServer()
    if (fromQuitters) process.abort()
    process.exit(70)
  }
  if (text.startsWith("PLAY")) firstPlayer ??= who
  if (deafens?.test(text)) deaf = true
  if (deaf && who === firstPlayer && text.startsWith("KEY") && text !== "KEY Q") return
  if (fromQuitters && text.startsWith("PLAY")) players.add(who)
  if (fromQuitters && text === "KEY Q" && players.has(who)) {
    quitters.add(who)
    if ([...players].every((each) => quitters.has(each))) {
      killServer()
      process.exit(0)
    }
  }
  relay(data, from)
})
await new Promise((resolve) => front.bind(0, "127.0.0.1", resolve))

const server = spawn(command[0], [...command.slice(1), "--port", "0"], { stdio: ["ignore", "pipe", "ignore"] })
killServer = () => server.kill("SIGKILL")
const serverPort = await new Promise((resolve) => {
  let out = ""
  server.stdout.setEncoding("utf8").on("data", (chunk) => {
    out += chunk
    const found = /waiting at port (\d+)/.exec(out)
    if (found) resolve(Number(found[1]))
  })
})

/** One socket toward the real server per client, so that it tells them apart. */
const sockets = new Map()
const forward = (data, from) => {
  const key = `${from.address}:${from.port}`
  let socket = sockets.get(key)
  if (socket === undefined) {
    socket = dgram.createSocket("udp4")
    socket.on("message", (back) => front.send(back, from.port, from.address))
    sockets.set(key, socket)
  }
  socket.send(data, serverPort, "127.0.0.1")
}
relay = forward
for (const [data, from] of early.splice(0)) forward(data, from)
// Its port is said once the real server is up, as a server says it when ready: a checker
// given HOST PORT then starts at once, and an answer's time runs from its first datagram.
process.stdout.write(`fragile server at port ${front.address().port}\n`)
// It ends with the real server (after its game over, say).
server.on("exit", (code) => process.exit(code ?? 1))
process.on("SIGTERM", () => {
  server.kill("SIGKILL")
  process.exit(0)
})
