/**
 * The load: 26 player sockets and one spectator socket in this process, speaking the
 * protocol with plain node:dgram so that the load itself costs as little as it can.
 */
import * as dgram from "node:dgram"
import type { ShadowGame } from "./shadow.js"

const D = 0x44 // 'D'
const I = 0x49 // 'I'
const Self = 0x40 // '@'
const Newline = 0x0a
const headerLength = "DISPLAY\n".length

const isDisplay = (data: Buffer) => data.length > headerLength && data[0] === D && data[1] === I

export class Client {
  /** The latest DISPLAY datagram. */
  display: Buffer | undefined
  displays = 0
  datagrams = 0
  bytes = 0
  /** The key round in which this client last got a DISPLAY. */
  round = -1
  /** The latest key round that owes this client a DISPLAY. */
  owedRound = -1
  /** Saturation: waiting for its own key to show, since `sentAt`, from `sentFrom`. */
  pending = false
  sentAt = 0
  sentFrom = -1
  onDisplay: ((client: Client) => void) | undefined
  /** When this client last pressed a key in a latency run (performance.now()). */
  lastKeyAt = -Infinity

  private constructor(readonly socket: dgram.Socket, readonly serverPort: number) {
    socket.on("message", (data) => {
      this.datagrams++
      this.bytes += data.length
      if (!isDisplay(data)) return
      this.displays++
      this.display = data
      this.onDisplay?.(this)
    })
  }

  static async open(serverPort: number): Promise<Client> {
    const socket = dgram.createSocket("udp4")
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve))
    // Room for a burst of large DISPLAYs (64 KB each on the large map); the system caps it.
    socket.setRecvBufferSize(8 * 2 ** 20)
    return new Client(socket, serverPort)
  }

  send(text: string): void {
    this.socket.send(text, this.serverPort, "127.0.0.1")
  }

  /** Where '@' is in the latest DISPLAY (a byte offset), or -1. */
  position(): number {
    return this.display ? this.display.indexOf(Self, headerLength) : -1
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()))
  }
}

/** A small seeded generator (mulberry32): the same seed picks the same keys. */
export const seededRandom = (seed: number) => {
  let state = seed >>> 0
  return (bound: number): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * bound)
  }
}

const steps: ReadonlyArray<readonly [string, number, number]> = [
  ["h", 0, -1], ["l", 0, 1], ["k", -1, 0], ["j", 1, 0], ["y", -1, -1], ["u", -1, 1], ["b", 1, -1], ["n", 1, 1]
]

/**
 * A random key that moves the player on its latest DISPLAY: onto a spot or another player,
 * never onto gold, so the game never ends and every key is the common case: a move, and a
 * DISPLAY to those who see it. Any key when there is no '@' (the stand-in's DISPLAYs have none).
 */
export const pickKey = (client: Client, random: (bound: number) => number): string => {
  const display = client.display
  const at = client.position()
  if (!display || at === -1) return steps[random(steps.length)]![0]
  const stride = display.indexOf(Newline, headerLength) - headerLength + 1
  const choices: Array<string> = []
  for (const [key, dRow, dCol] of steps) {
    const next = at + dRow * stride + dCol
    if (next < headerLength || next >= display.length) continue
    const ch = display[next]!
    if (ch === 0x2e || ch === 0x23 || (ch >= 0x41 && ch <= 0x5a)) choices.push(key)
  }
  return choices.length > 0 ? choices[random(choices.length)]! : steps[random(steps.length)]![0]
}

export class Load {
  private constructor(readonly players: ReadonlyArray<Client>, readonly spectator: Client) {}

  get all(): ReadonlyArray<Client> {
    return [...this.players, this.spectator]
  }

  /** 26 players join (PLAY bench-N), then the spectator; returns once all is quiet. */
  static async join(port: number, players = 26): Promise<Load> {
    const joined: Array<Client> = []
    for (let i = 0; i < players; i++) {
      const client = await Client.open(port)
      client.send(`PLAY bench-${i + 1}`)
      await firstDisplay(client, `player ${i + 1}`)
      joined.push(client)
    }
    const spectator = await Client.open(port)
    spectator.send("SPECTATE")
    await firstDisplay(spectator, "spectator")
    const load = new Load(joined, spectator)
    await load.quiet()
    return load
  }

  /** Resolves once no datagram has arrived for `quietMs`. */
  async quiet(quietMs = 150): Promise<void> {
    const total = () => this.all.reduce((sum, client) => sum + client.bytes, 0)
    for (let before = -1; before !== total();) {
      before = total()
      await new Promise((resolve) => setTimeout(resolve, quietMs))
    }
  }

  bytes(): number {
    return this.all.reduce((sum, client) => sum + client.bytes, 0)
  }

  datagrams(): number {
    return this.all.reduce((sum, client) => sum + client.datagrams, 0)
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((client) => client.close()))
  }
}

const firstDisplay = (client: Client, who: string) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${who}: no DISPLAY within 5 s`)), 5000)
    client.onDisplay = () => {
      clearTimeout(timer)
      client.onDisplay = undefined
      resolve()
    }
  })

/** Key rounds numbered across all runs: a client's `round` and `owedRound` from an earlier run never match a later one. */
let lastRound = 0

/** The least time between two keys of one player in a latency run: 50 a second, under the server's limit of 60. */
const playerKeyGapMs = 20

export interface LatencyRun {
  /** µs from KEY until every client it owes a DISPLAY held a new one. */
  readonly samples: ReadonlyArray<number>
  /** Keys after which some client owed a DISPLAY got none within the deadline. */
  readonly incomplete: number
  /** Keys sent: those that would move no one are not. */
  readonly sent: number
}

/**
 * One key at a time, from each player in turn: the time from sending KEY until every client
 * it owes a DISPLAY has received its next one. Which clients that is, the shadow game says
 * (see `shadow.ts`); without one (the stand-in), all 27.
 */
export const measureLatency = async (
  load: Load,
  keys: number,
  random: (bound: number) => number,
  shadow?: ShadowGame,
  deadlineMs = 1000
): Promise<LatencyRun> => {
  const clients = load.all
  const samples: Array<number> = []
  let incomplete = 0
  let sent = 0
  let round = lastRound
  let waiting = 0
  let started = 0n
  let finish: ((at: bigint) => void) | undefined
  const onDisplay = (client: Client) => {
    if (client.owedRound !== round || client.round === round) return
    client.round = round
    if (--waiting === 0) finish?.(process.hrtime.bigint())
  }
  for (const client of clients) client.onDisplay = onDisplay
  for (let k = 0; k < keys; k++) {
    const moverIndex = k % load.players.length
    const mover = load.players[moverIndex]!
    // Each player under the server's key limit (60 a second): a key any faster would wait its turn, and time the wait.
    const due = mover.lastKeyAt + playerKeyGapMs - performance.now()
    if (due > 0) await new Promise((resolve) => setTimeout(resolve, due))
    mover.lastKeyAt = performance.now()
    const key = pickKey(mover, random)
    // Worked out before the key goes, so that it costs the measurement nothing.
    const expected = shadow?.key(moverIndex, key)
    const owed = expected === undefined ? clients : expected.owed.map((index) => clients[index]!)
    // A key that moves no one (the rare random key of a player hemmed in) is answered by nothing.
    if (owed.length === 0) continue
    round = ++lastRound
    for (const client of owed) client.owedRound = round
    waiting = owed.length
    const done = new Promise<bigint | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), deadlineMs)
      finish = (at) => {
        clearTimeout(timer)
        resolve(at)
      }
    })
    started = process.hrtime.bigint()
    mover.send(`KEY ${key}`)
    sent++
    const at = await done
    finish = undefined
    if (at === undefined) incomplete++
    else samples.push(Number(at - started) / 1000)
    if (expected !== undefined && at !== undefined && mover.position() !== expected.moverAt) {
      throw new Error(`the shadow game is out of step with the server: player ${moverIndex + 1} is at ${mover.position()}, not ${expected.moverAt}`)
    }
  }
  for (const client of clients) client.onDisplay = undefined
  return { samples, incomplete, sent }
}

export interface SaturationRun {
  readonly seconds: number
  /** Moves the server made in the window (DISPLAYs the spectator got), per second. */
  readonly keysPerSecond: number
  readonly movesInWindow: number
  readonly keysSent: number
  /** Keys sent again after a player's key showed no effect within 50 ms. */
  readonly resent: number
}

/**
 * Every player presses its next key as soon as its own DISPLAY shows its last one took
 * effect, for a warm-up and then `seconds`; `mark` is called at the start and end of the
 * measured window (to read the server's CPU).
 */
export const saturate = async (
  load: Load,
  seconds: number,
  random: (bound: number) => number,
  mark: (phase: "start" | "end") => void,
  warmupMs = 300
): Promise<SaturationRun> => {
  let sending = true
  let keysSent = 0
  let resent = 0
  const press = (player: Client) => {
    player.sentFrom = player.position()
    player.pending = true
    player.sentAt = performance.now()
    player.send(`KEY ${pickKey(player, random)}`)
    keysSent++
  }
  const onDisplay = (player: Client) => {
    if (sending && player.pending && player.position() !== player.sentFrom) press(player)
  }
  for (const player of load.players) player.onDisplay = onDisplay
  // A key can be overtaken (someone swapped places first) and not move at all: press again.
  const watchdog = setInterval(() => {
    const now = performance.now()
    for (const player of load.players) {
      if (sending && player.pending && now - player.sentAt > 50) {
        resent++
        press(player)
      }
    }
  }, 20)
  for (const player of load.players) press(player)
  await new Promise((resolve) => setTimeout(resolve, warmupMs))
  mark("start")
  const movesAtStart = load.spectator.displays
  const startedAt = performance.now()
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  const elapsed = (performance.now() - startedAt) / 1000
  const moves = load.spectator.displays - movesAtStart
  mark("end")
  sending = false
  clearInterval(watchdog)
  for (const player of load.players) {
    player.onDisplay = undefined
    player.pending = false
  }
  await load.quiet(300)
  return {
    seconds: elapsed,
    keysPerSecond: moves / elapsed,
    movesInWindow: moves,
    keysSent,
    resent
  }
}
