/**
 * What the hostile-client tests share: a game's web side as a real process (`nuggets serve
 * --web`, or a game of `nuggets host` under its lobby), raw TCP clients that send what a
 * browser never would, and the checks every attack must pass (the process lives, a UDP
 * player still gets its DISPLAY, a fresh page still watches and plays, and the process's
 * memory comes back).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect, type Socket } from "node:net"
import { nuggetsCommand, Program } from "../cli/process.js"
import { TestClient } from "../server/harness.js"
import { PageSocket, Watcher } from "./harness.js"

/** How far the resident memory may stay above where it started once an attack is over. */
export const rssSlackMB = 150

export interface ServedGame {
  readonly program: Program
  /** The game's UDP port. */
  readonly port: number
  /** The game page's address: as printed by `serve`, or the game's under the lobby. */
  readonly url: string
  /** The path of the game's page, its feed and its socket beside it: `/`, or `/games/ID/`. */
  readonly base: string
  /** More paths the server answers (the lobby's), attacked as the game's are. */
  readonly morePaths: ReadonlyArray<string>
  readonly pid: number
  /** Resident memory once the game was up and served once. */
  readonly startRssMB: number
  readonly stop: () => Promise<void>
}

/** The process's resident memory now, from /proc. */
export const rssMB = (pid: number): number => {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  if (!line) throw new Error(`no VmRSS for ${pid}`)
  return Number(line[1]) / 1024
}

export const isRunning = (program: Program) => program.child.exitCode === null && program.child.signalCode === null

/** `nuggets serve maps/main.txt --web ...` as its own process, once it has served a page and a UDP player. */
export const serveWeb = async (webArgs: ReadonlyArray<string> = ["--web", "127.0.0.1:0"]): Promise<ServedGame> => {
  const program = Program.start([...(await nuggetsCommand()), "serve", "maps/main.txt", "7", "--host", "127.0.0.1", ...webArgs])
  const stop = async () => {
    program.child.kill("SIGKILL")
    await program.exited
  }
  try {
    const port = Number(/\d+$/.exec(await program.line(/^Ready to play, waiting at port \d+$/))![0])
    const url = /http:\/\/\S+/.exec(await program.line(/^Watch and play in a browser: http:\/\/\S+/))![0]
    const game = { program, port, url, base: "/", morePaths: [], pid: program.child.pid!, startRssMB: 0, stop }
    // Warmed up the way the checks will use it, so that the first figure is not the lowest it can be.
    await stillServing(game, { rss: false })
    return { ...game, startRssMB: rssMB(game.pid) }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * `nuggets host --web ...` as its own process, keeping one game open, attacked through
 * that game's page under the lobby (`/games/ID/`) and the lobby's own routes.
 */
export const hostWeb = async (webArgs: ReadonlyArray<string> = ["--web", "127.0.0.1:0"]): Promise<ServedGame> => {
  const data = mkdtempSync(join(tmpdir(), "nuggets-hostile-"))
  const program = Program.start([...(await nuggetsCommand()), "host", "--open", "1", "--host", "127.0.0.1", "--data", data, ...webArgs])
  const stop = async () => {
    program.child.kill("SIGKILL")
    await program.exited
    rmSync(data, { recursive: true, force: true })
  }
  try {
    const lobby = /http:\/\/\S+/.exec(await program.line(/^Lobby: http:\/\/\S+/))![0]
    const { games } = await (await fetch(new URL("/api/games", lobby))).json() as { games: Array<{ port: number; page: string }> }
    const { page, port } = games[0]!
    const game = {
      program,
      port,
      url: new URL(page, lobby).href,
      base: page,
      morePaths: ["/events", "/api/games", "/archive"],
      pid: program.child.pid!,
      startRssMB: 0,
      stop
    }
    await stillServing(game, { rss: false })
    return { ...game, startRssMB: rssMB(game.pid) }
  } catch (error) {
    await stop()
    throw error
  }
}

let probes = 0

/** A UDP player joins, gets its DISPLAY, and quits. */
export const udpProbe = async (port: number): Promise<string> => {
  const probe = await TestClient.open(port)
  try {
    probe.send(`PLAY Probe ${++probes}`)
    const display = await probe.nextStarting("DISPLAY")
    probe.send("KEY Q")
    await probe.nextStarting("QUIT")
    return display
  } finally {
    probe.close()
  }
}

let pages = 0

/** What a fresh browser page does: load `/`, watch (the map and a frame), join over the WebSocket, see its view, quit. */
export const freshPage = async (url: string): Promise<void> => {
  const page = await fetch(url)
  if (page.status !== 200 || !(await page.text()).includes('id="grid"')) throw new Error(`/ answered ${page.status}`)
  const watcher = await Watcher.open(url)
  try {
    if (watcher.status !== 200) throw new Error(`/watch answered ${watcher.status}`)
    const hello = await watcher.events.next()
    if (hello.event !== "hello") throw new Error(`/watch began with ${hello.event}`)
    await watcher.snapshot()
  } finally {
    watcher.close()
  }
  const player = await PageSocket.open(url)
  try {
    player.send(`PLAY Fresh ${++pages}`)
    const ok = await player.next()
    if (!/^OK [A-Z]$/.test(ok)) throw new Error(`PLAY over the WebSocket got ${ok}`)
    await player.nextStarting("DISPLAY")
    player.send("KEY Q")
    await player.nextStarting("QUIT")
  } finally {
    await player.close()
  }
}

/**
 * The checks after an attack: the process still runs, a UDP player gets its DISPLAY, a
 * fresh page watches and plays, and the resident memory comes back within `rssSlackMB`
 * of where it started (awaited with a deadline: a collector frees memory in its own time).
 */
export const stillServing = async (game: Omit<ServedGame, "startRssMB">, options: { readonly rss?: boolean; readonly startRssMB?: number } = {}) => {
  const exited = game.program.exited.then((code) => {
    throw new Error(`the server exited (${code}); stderr: ${game.program.stderr.slice(-2000)}`)
  })
  exited.catch(() => undefined)
  await Promise.race([exited, (async () => {
    await udpProbe(game.port)
    await freshPage(game.url)
  })()])
  if (!isRunning(game.program)) await exited
  if (options.rss === false || options.startRssMB === undefined) return
  const deadline = Date.now() + 20_000
  let now = rssMB(game.pid)
  while (now - options.startRssMB > rssSlackMB && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    now = rssMB(game.pid)
  }
  if (now - options.startRssMB > rssSlackMB) {
    throw new Error(`resident memory ${Math.round(now)} MB, from ${Math.round(options.startRssMB)} MB at the start`)
  }
}

/** A plain TCP connection to the page's server. */
export const connectTo = (url: string): Promise<Socket> => {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ""), () => {
      socket.off("error", reject)
      // A hostile client expects to be cut off: a reset is how it ends, not a failure of the test.
      socket.on("error", () => undefined)
      resolve(socket)
    })
    socket.once("error", reject)
  })
}

/** The Host header a browser on this machine sends for `url`. */
export const hostOf = (url: string) => new URL(url).host

/** One request's text, headers as given (nothing added but Host). */
export const requestText = (path: string, headers: Record<string, string>, version = "1.1") =>
  `GET ${path} HTTP/${version}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`

/** What the server sends on `socket` until it matches `pattern`, the server closes it, or `timeoutMs` passes. */
export const readUntil = (socket: Socket, pattern: RegExp, timeoutMs = 3000): Promise<string> =>
  new Promise((resolve) => {
    let text = ""
    const done = () => {
      clearTimeout(timer)
      socket.off("data", onData)
      socket.off("close", done)
      resolve(text)
    }
    const onData = (chunk: Buffer) => {
      text += chunk.toString("latin1")
      if (pattern.test(text)) done()
    }
    const timer = setTimeout(done, timeoutMs)
    socket.on("data", onData)
    socket.on("error", () => undefined)
    socket.once("close", done)
  })

/** The first bytes the server sends on `socket` (or "" if it closes first, or nothing comes in time). */
export const firstBytes = (socket: Socket, timeoutMs = 3000): Promise<string> =>
  new Promise((resolve) => {
    const done = (text: string) => {
      clearTimeout(timer)
      socket.off("data", onData)
      socket.off("close", onClose)
      resolve(text)
    }
    const onData = (chunk: Buffer) => done(chunk.toString("latin1"))
    const onClose = () => done("")
    const timer = setTimeout(() => done(""), timeoutMs)
    socket.on("data", onData)
    socket.once("close", onClose)
    socket.on("error", () => undefined)
  })

/** The status of the first reply in `text`, or undefined. */
export const statusOf = (text: string): number | undefined => {
  const status = /^HTTP\/1\.[01] (\d{3}) /.exec(text)
  return status ? Number(status[1]) : undefined
}

/** One request on a new connection: the status of the reply, the connection then closed. */
export const statusFor = async (url: string, path: string, headers: Record<string, string>): Promise<number | undefined> => {
  const socket = await connectTo(url)
  socket.write(requestText(path, headers))
  const status = statusOf(await firstBytes(socket))
  socket.destroy()
  return status
}

/** Resolves once everything written to `socket` has left for the server (or the deadline passes). */
export const flushed = (socket: Socket, timeoutMs = 3000): Promise<void> =>
  socket.writableLength === 0
    ? Promise.resolve()
    : new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs)
      socket.once("drain", () => {
        clearTimeout(timer)
        resolve()
      })
    })

/** A WebSocket handshake's key, and the text frame a client sends (masked, as clients must): no library needed. */
export const webSocketKey = "dGhlIHNhbXBsZSBub25jZQ=="
export const maskedTextFrame = (text: string): Buffer => {
  const payload = Buffer.from(text)
  if (payload.length > 125) throw new Error("a short frame only")
  const mask = Buffer.from([1, 2, 3, 4])
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload.map((byte, i) => byte ^ mask[i % 4]!)])
}

/** A page's WebSocket on a plain socket: the handshake, then `first` sent as one message; what came back until `until`. */
export const rawWebSocket = async (url: string, first: string, until: RegExp): Promise<{ socket: Socket; text: string }> => {
  const socket = await connectTo(url)
  const answered = readUntil(socket, /\r\n\r\n/)
  socket.write(requestText(new URL("play", url).pathname, {
    host: hostOf(url),
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": webSocketKey
  }))
  const head = await answered
  if (statusOf(head) !== 101) {
    socket.destroy()
    throw new Error(`the upgrade got ${JSON.stringify(head.slice(0, 200))}`)
  }
  const reply = readUntil(socket, until)
  socket.write(maskedTextFrame(first))
  return { socket, text: await reply }
}
