/**
 * Players at a person's pace (a key every 250 to 750 ms, 2 a second on average), for
 * `nuggets host`: each key timed from its KEY to the next DISPLAY the player gets (every move
 * key is answered with one; a DISPLAY caused by another's move in between cuts a sample
 * short, alike for every server). Hundreds of games are thousands of sockets and timers,
 * too many for one process to time fairly beside the host on two cores, so the players are
 * spread over several processes of their own (`PacedLoad`), each of which says what it cost
 * (its CPU, and how late its event loop ran) beside what it measured.
 */
import { type ChildProcess, fork } from "node:child_process"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { Client, pickKey, seededRandom } from "./load.js"
import { round } from "./stats.js"

/** A player at a person's pace: a key every 250 to 750 ms; the time from each key to the DISPLAY that answers it. */
export class PacedPlayer {
  private sentAt: number | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  keys = 0
  readonly samples: Array<number> = []
  measuring = false

  constructor(readonly client: Client, private readonly random: (bound: number) => number) {
    client.onDisplay = () => {
      if (this.sentAt === undefined) return
      if (this.measuring) this.samples.push((performance.now() - this.sentAt) * 1000)
      this.sentAt = undefined
    }
  }

  start(): void {
    this.sentAt = undefined
    const next = () => {
      this.timer = setTimeout(() => {
        this.sentAt = performance.now()
        if (this.measuring) this.keys++
        this.client.send(`KEY ${pickKey(this.client, this.random)}`)
        next()
      }, 250 + this.random(500))
    }
    next()
  }

  stop(): void {
    clearTimeout(this.timer)
  }
}

/** `players` players on each port, joined a game at a time (the host's lobby shows each game as it fills). */
export const joinAll = async (ports: ReadonlyArray<number>, players: number): Promise<Array<Client>> => {
  const clients: Array<Client> = []
  for (const port of ports) {
    await Promise.all(Array.from({ length: players }, async (_, i) => {
      const client = await Client.open(port)
      clients.push(client)
      const displayed = new Promise<void>((resolve) => (client.onDisplay = () => resolve()))
      client.send(`PLAY bench-${i + 1}`)
      await displayed
    }))
  }
  return clients
}

/** What a process of players measured over a block, and what it cost. */
export interface WorkerBlock {
  readonly keys: number
  readonly samples: ReadonlyArray<number>
  /** Its own CPU over the measured time, µs. */
  readonly cpuMicros: number
  /** How late its event loop ran a timer (beyond its due time), µs: the p99 and the most. */
  readonly loopDelayP99Micros: number
  readonly loopDelayMaxMicros: number
}

type ToWorker =
  | { readonly _tag: "join"; readonly ports: ReadonlyArray<number>; readonly players: number; readonly seed: number }
  | { readonly _tag: "start" }
  | { readonly _tag: "measure" }
  | { readonly _tag: "stop" }
  | { readonly _tag: "close" }

type FromWorker =
  | { readonly _tag: "joined" }
  | { readonly _tag: "block"; readonly block: WorkerBlock }

/** The tick of the players' event-loop delay histogram, ms: what it records is the time between ticks, this much and how late. */
const loopTickMs = 5

/** The child's side: its players, driven by what the parent says. */
const runWorker = () => {
  let players: Array<PacedPlayer> = []
  let cpuAt = process.cpuUsage()
  const delay = monitorEventLoopDelay({ resolution: loopTickMs })
  const reply = (message: FromWorker) => process.send!(message)
  // The bench is gone (or done with it): so are its players.
  process.once("disconnect", () => process.exit(0))
  process.on("message", async (message: ToWorker) => {
    switch (message._tag) {
      case "join": {
        const clients = await joinAll(message.ports, message.players)
        const random = seededRandom(message.seed)
        players = clients.map((client) => new PacedPlayer(client, random))
        return reply({ _tag: "joined" })
      }
      case "start":
        for (const player of players) player.start()
        return
      case "measure":
        for (const player of players) player.measuring = true
        cpuAt = process.cpuUsage()
        delay.reset()
        delay.enable()
        return
      case "stop": {
        delay.disable()
        const cpu = process.cpuUsage(cpuAt)
        for (const player of players) {
          player.stop()
          player.measuring = false
        }
        const block: WorkerBlock = {
          keys: players.reduce((sum, player) => sum + player.keys, 0),
          samples: players.flatMap((player) => player.samples.splice(0)),
          cpuMicros: cpu.user + cpu.system,
          loopDelayP99Micros: delay.percentile(99) / 1000 - loopTickMs * 1000,
          loopDelayMaxMicros: delay.max / 1000 - loopTickMs * 1000
        }
        for (const player of players) player.keys = 0
        return reply({ _tag: "block", block })
      }
      case "close":
        await Promise.all(players.map((player) => player.client.close()))
        process.disconnect()
    }
  })
}

/** One process of players, from the parent's side. */
class Worker {
  private waiting: Array<(message: FromWorker) => void> = []
  readonly exited: Promise<void>

  constructor(readonly child: ChildProcess) {
    child.on("message", (message: FromWorker) => this.waiting.shift()?.(message))
    this.exited = new Promise((resolve) => child.on("exit", () => resolve()))
  }

  tell(message: ToWorker): void {
    this.child.send(message)
  }

  ask(message: ToWorker): Promise<FromWorker> {
    const answer = new Promise<FromWorker>((resolve, reject) => {
      this.waiting.push(resolve)
      void this.exited.then(() => reject(new Error("a process of players exited")))
    })
    this.tell(message)
    return answer
  }
}

/** One measured block: what the players measured, and what it cost them. */
export interface BlockFigures {
  readonly seconds: number
  readonly keys: number
  readonly samples: ReadonlyArray<number>
  /** The players' processes' CPU, as a share of one core (all of them together). */
  readonly loadCpuShare: number
  /** The worst of their event loops' p99 delay, and the worst delay, µs. */
  readonly loadLoopDelayP99Micros: number
  readonly loadLoopDelayMaxMicros: number
}

const workerScript = fileURLToPath(import.meta.url)

/** What a block calls as its measured time ends. */
type Ended = () => void | Promise<void>

/**
 * Players at a person's pace on every port, `players` a game, in `processes` processes of
 * their own: measured a block at a time, idle between blocks.
 */
export class PacedLoad {
  private constructor(private readonly workers: ReadonlyArray<Worker>) {}

  static async join(ports: ReadonlyArray<number>, players: number, seed: number, processes: number): Promise<PacedLoad> {
    const count = Math.max(1, Math.min(processes, ports.length))
    const workers = Array.from({ length: count }, () =>
      new Worker(fork(workerScript, ["--paced-worker"], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] })))
    const load = new PacedLoad(workers)
    try {
      await Promise.all(workers.map((worker, i) =>
        worker.ask({ _tag: "join", ports: ports.filter((_, at) => at % count === i), players, seed: seed + i })))
    } catch (error) {
      await load.close()
      throw error
    }
    return load
  }

  /**
   * `seconds` of keys, after a second of keys so that every player is at its pace; `during`
   * is called as the measured time starts, and its result as it ends (to read the server's
   * CPU, say); each is awaited.
   */
  async block(seconds: number, during: () => Ended | Promise<Ended> = () => () => {}): Promise<BlockFigures> {
    for (const worker of this.workers) worker.tell({ _tag: "start" })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    for (const worker of this.workers) worker.tell({ _tag: "measure" })
    const ended = await during()
    const started = performance.now()
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
    await ended()
    const elapsed = (performance.now() - started) / 1000
    const blocks = (await Promise.all(this.workers.map((worker) => worker.ask({ _tag: "stop" }))))
      .flatMap((answer) => (answer._tag === "block" ? [answer.block] : []))
    return {
      seconds: elapsed,
      keys: blocks.reduce((sum, block) => sum + block.keys, 0),
      samples: blocks.flatMap((block) => block.samples),
      loadCpuShare: round(blocks.reduce((sum, block) => sum + block.cpuMicros, 0) / (elapsed * 1e6), 3),
      loadLoopDelayP99Micros: round(Math.max(...blocks.map((block) => block.loopDelayP99Micros))),
      loadLoopDelayMaxMicros: round(Math.max(...blocks.map((block) => block.loopDelayMaxMicros)))
    }
  }

  async close(): Promise<void> {
    for (const worker of this.workers) {
      if (worker.child.connected) worker.tell({ _tag: "close" })
    }
    const timer = setTimeout(() => this.workers.forEach((worker) => worker.child.kill("SIGKILL")), 5000)
    await Promise.all(this.workers.map((worker) => worker.exited))
    clearTimeout(timer)
  }
}

if (process.argv.includes("--paced-worker") && process.send !== undefined) runWorker()
