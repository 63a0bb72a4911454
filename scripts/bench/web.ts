/**
 * What watching in the browser costs the UDP game, end to end: `nuggets serve --web` as its
 * own process, 21 players and a spectator over loopback UDP pressing a steady 200 keys a
 * second between them (a busy game, each player well under the key limit), a probe player
 * asking for its view (Ctrl-L) 20 times a second, and 0, 200 or 1,000 watchers reading
 * `/watch` over real TCP connections, from a process of their own.
 *   - server CPU per UDP key, over all the keys;
 *   - the probe's latency, from its key to its DISPLAY: p50 and p95;
 *   - snapshots per watcher per second, and the lag from a key to the first snapshot that
 *     shows its move at a sampled watcher.
 * (The page soak is in pages.ts.)
 * `node --import tsx scripts/bench/web.ts [--quick] [--nuggets BUNDLE] [MAP]` prints the figures.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client, Load, pickKey, seededRandom } from "./load.js"
import { cpuMicros, root, type ServerProcess } from "./process.js"
import { bundleNuggets, type Nuggets, startWebServer } from "./server.js"
import { round, summarize } from "./stats.js"

/**
 * Watchers in a process of their own, so that reading 1,000 streams does not slow the load
 * that presses the keys: plain TCP sockets asking `/watch` (HTTP/1.0, so the events come
 * unchunked), counting snapshots (the event was called "frame" before); the first few
 * also report each one's positions and when it came (on the clock every process shares).
 */
const watchersProgram = `
const net = require("node:net")
const [url, count, sampled] = process.argv.slice(1)
const { hostname, port } = new URL(url)
let snapshots = 0
let open = 0
let served = 0
for (let i = 0; i < Number(count); i++) {
  const socket = net.connect(Number(port), hostname, () => {
    socket.write("GET /watch HTTP/1.0\\r\\nHost: " + hostname + ":" + port + "\\r\\n\\r\\n")
    if (++open === Number(count)) process.send({ ready: true })
  })
  socket.on("error", () => {})
  let text = ""
  let first = true
  socket.setEncoding("utf8").on("data", (chunk) => {
    text += chunk
    if (first) {
      first = false
      if (/^HTTP\\/1\\.[01] 200 /.test(text)) served++
    }
    for (let end = text.indexOf("\\n\\n"); end !== -1; end = text.indexOf("\\n\\n")) {
      const event = text.slice(0, end)
      text = text.slice(end + 2)
      const body = /^event: (snapshot|frame)\\ndata: /.exec(event)
      if (!body) continue
      snapshots++
      if (i < Number(sampled)) {
        const at = performance.timeOrigin + performance.now()
        const cells = JSON.parse(event.slice(body[0].length)).players.map((p) => p.cell)
        process.send({ watcher: i, at, cells })
      }
    }
  })
}
process.on("message", () => process.send({ snapshots, served }))
`

type WatcherReport = { ready: true } | { watcher: number; at: number; cells: Array<number> } | { snapshots: number; served: number }

class Watchers {
  onSnapshot: ((report: { watcher: number; at: number; cells: Array<number> }) => void) | undefined
  private onCount: ((counts: { snapshots: number; served: number }) => void) | undefined

  private constructor(private readonly child: ChildProcess, readonly count: number) {
    child.on("message", (report: WatcherReport) => {
      if ("cells" in report) this.onSnapshot?.(report)
      else if ("snapshots" in report) this.onCount?.(report)
    })
  }

  static async open(url: string, count: number, sampled = 10): Promise<Watchers> {
    const child = spawn(process.execPath, ["-e", watchersProgram, url, String(count), String(sampled)], {
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    await new Promise<void>((resolve, reject) => {
      child.once("message", () => resolve())
      child.once("exit", (code) => reject(new Error(`the watchers' process exited with ${code}`)))
    })
    return new Watchers(child, count)
  }

  /** Snapshots received so far over all watchers, and how many watchers were let in. */
  counts(): Promise<{ snapshots: number; served: number }> {
    return new Promise((resolve) => {
      this.onCount = resolve
      this.child.send("count")
    })
  }

  close(): void {
    this.child.kill()
  }
}

/** Now, on the clock every process shares (ms). */
const now = () => performance.timeOrigin + performance.now()

/** NC, from a DISPLAY. */
const widthOf = (display: Buffer) => display.indexOf(0x0a, "DISPLAY\n".length) - "DISPLAY\n".length

/** A player's gridpoint, from its latest DISPLAY. */
const cellOf = (client: Client, width: number): number => {
  const offset = client.position() - "DISPLAY\n".length
  return Math.floor(offset / (width + 1)) * width + (offset % (width + 1))
}

export interface WatcherFigures {
  readonly watchers: number
  /** Watchers the server let in (200 OK). */
  readonly served: number
  readonly udpKeysPerSecond: number
  readonly cpuMicrosPerUdpKey: number
  readonly cpuMillisPerSecond: number
  readonly probeP50Micros: number
  readonly probeP95Micros: number
  readonly probeMissed: number
  readonly snapshotsPerWatcherPerSecond?: number
  readonly watcherLagMedianMs?: number
}

/**
 * `seconds` of a steady `rate` of move keys from the load's players in turn, and a probe
 * key every `probeEveryMs`; the server's CPU over it all.
 */
const measure = async (
  server: ServerProcess,
  load: Load,
  probe: Client,
  watchers: Watchers | undefined,
  options: { readonly seconds: number; readonly rate: number; readonly probeEveryMs: number }
): Promise<WatcherFigures> => {
  const random = seededRandom(2)
  const width = widthOf(load.spectator.display!)
  const lags: Array<number> = []
  const pending: Array<{ mover: number; cell: number; sentAt: number; seen: Set<number> }> = []
  if (watchers) {
    watchers.onSnapshot = ({ at, cells, watcher }) => {
      for (const key of pending) {
        if (!key.seen.has(watcher) && cells[key.mover] === key.cell && at >= key.sentAt) {
          key.seen.add(watcher)
          lags.push(at - key.sentAt)
        }
      }
    }
  }
  const sentAt = new Map<Client, { at: number; from: number }>()
  load.players.forEach((player, index) => {
    player.onDisplay = () => {
      const sent = sentAt.get(player)
      if (sent === undefined || player.position() === sent.from) return
      sentAt.delete(player)
      if (watchers) pending.push({ mover: index, cell: cellOf(player, width), sentAt: sent.at, seen: new Set() })
    }
  })
  // The probe: Ctrl-L, answered with its GOLD and its DISPLAY; the time to the DISPLAY.
  const probeSamples: Array<number> = []
  let probeSent: number | undefined
  let probeKeys = 0
  let probeMissed = 0
  probe.onDisplay = () => {
    if (probeSent === undefined) return
    probeSamples.push((performance.now() - probeSent) * 1000)
    probeSent = undefined
  }
  const probing = setInterval(() => {
    if (probeSent !== undefined) probeMissed++
    probeSent = performance.now()
    probeKeys++
    probe.send("KEY \f")
  }, options.probeEveryMs)

  const countsBefore = watchers ? await watchers.counts() : { snapshots: 0, served: 0 }
  const cpuBefore = cpuMicros(server.pid).micros
  const started = performance.now()
  const total = Math.round(options.seconds * options.rate)
  for (let k = 0; k < total; k++) {
    // On schedule, not after the previous key's answer: a steady rate, whatever the server does.
    const wait = started + (k * 1000) / options.rate - performance.now()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    const index = k % load.players.length
    const mover = load.players[index]!
    // Its earlier key is now overtaken: a snapshot that did not show it in time never will.
    for (let i = pending.length - 1; i >= 0; i--) if (pending[i]!.mover === index) pending.splice(i, 1)
    sentAt.set(mover, { at: now(), from: mover.position() })
    mover.send(`KEY ${pickKey(mover, random)}`)
  }
  const sendingSeconds = (performance.now() - started) / 1000
  clearInterval(probing)
  await load.quiet(150)
  const cpu = cpuMicros(server.pid).micros - cpuBefore
  const seconds = (performance.now() - started) / 1000
  const counts = watchers ? await watchers.counts() : countsBefore
  for (const player of load.players) player.onDisplay = undefined
  probe.onDisplay = undefined
  if (watchers) watchers.onSnapshot = undefined
  const probeLatency = summarize(probeSamples)
  const sorted = [...probeSamples].sort((a, b) => a - b)
  const udpKeys = total + probeKeys
  const count = watchers?.count ?? 0
  return {
    watchers: count,
    served: counts.served,
    udpKeysPerSecond: round(udpKeys / sendingSeconds),
    cpuMicrosPerUdpKey: round(cpu / udpKeys),
    cpuMillisPerSecond: round(cpu / 1000 / seconds, 2),
    probeP50Micros: round(probeLatency.median),
    probeP95Micros: round(sorted[Math.min(sorted.length - 1, Math.floor(0.95 * sorted.length))]!),
    probeMissed,
    ...(count > 0
      ? {
        snapshotsPerWatcherPerSecond: round((counts.snapshots - countsBefore.snapshots) / Math.max(1, counts.served) / seconds, 2),
        ...(lags.length > 0 ? { watcherLagMedianMs: round(summarize(lags).median) } : {})
      }
      : {})
  }
}

export const watcherCounts = [0, 200, 1000] as const

/** The figures for one map, one server per watcher count, measured in alternating blocks. */
export const benchWatchers = async (
  mapFile: string,
  options: { readonly seconds?: number; readonly blocks?: number; readonly nuggets?: Nuggets } = {}
): Promise<ReadonlyArray<WatcherFigures>> => {
  const { blocks = 3, seconds = 15 } = options
  const dir = mkdtempSync(join(tmpdir(), "nuggets-bench-web-"))
  const servers: Array<ServerProcess> = []
  const clients: Array<Load | Client> = []
  const watcherSets: Array<Watchers> = []
  try {
    const nuggets = options.nuggets ?? (await bundleNuggets(dir))
    const scenarios = []
    for (const count of watcherCounts) {
      const server = await startWebServer(nuggets, mapFile)
      servers.push(server)
      const watchers = count > 0 ? await Watchers.open(server.url, count) : undefined
      if (watchers) watcherSets.push(watchers)
      const load = await Load.join(server.port, 21)
      clients.push(load)
      const probe = await Client.open(server.port)
      clients.push(probe)
      probe.send("PLAY probe")
      await new Promise<void>((resolve) => (probe.onDisplay = () => resolve()))
      await load.quiet()
      scenarios.push({ server, load, probe, watchers })
    }
    // In alternating blocks: a busy moment of the machine weighs on all alike.
    const tallies: Array<Array<WatcherFigures>> = scenarios.map(() => [])
    for (let block = 0; block < blocks; block++) {
      for (const [i, { load, probe, server, watchers }] of scenarios.entries()) {
        tallies[i]!.push(await measure(server, load, probe, watchers, { seconds: seconds / blocks, rate: 200, probeEveryMs: 50 }))
      }
    }
    return tallies.map(combine)
  } finally {
    for (const watchers of watcherSets) watchers.close()
    await Promise.all(clients.map((client) => client.close()))
    await Promise.all(servers.map((server) => server.stop()))
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Blocks of one scenario as one row: rates and CPU averaged, latencies their medians' and p95s' median. */
const combine = (blocks: ReadonlyArray<WatcherFigures>): WatcherFigures => {
  const mid = (pick: (figures: WatcherFigures) => number | undefined) => {
    const values = blocks.map(pick).filter((value): value is number => value !== undefined).sort((a, b) => a - b)
    return values.length === 0 ? undefined : values[Math.floor(values.length / 2)]!
  }
  const mean = (pick: (figures: WatcherFigures) => number) => round(blocks.reduce((sum, each) => sum + pick(each), 0) / blocks.length, 2)
  const first = blocks[0]!
  return {
    watchers: first.watchers,
    served: Math.min(...blocks.map((each) => each.served)),
    udpKeysPerSecond: mean((each) => each.udpKeysPerSecond),
    cpuMicrosPerUdpKey: mean((each) => each.cpuMicrosPerUdpKey),
    cpuMillisPerSecond: mean((each) => each.cpuMillisPerSecond),
    probeP50Micros: mid((each) => each.probeP50Micros)!,
    probeP95Micros: mid((each) => each.probeP95Micros)!,
    probeMissed: blocks.reduce((sum, each) => sum + each.probeMissed, 0),
    ...(first.watchers > 0
      ? {
        snapshotsPerWatcherPerSecond: mean((each) => each.snapshotsPerWatcherPerSecond ?? 0),
        ...(mid((each) => each.watcherLagMedianMs) !== undefined ? { watcherLagMedianMs: mid((each) => each.watcherLagMedianMs)! } : {})
      }
      : {})
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2)
  const quick = args.includes("--quick")
  const bundleAt = args.indexOf("--nuggets")
  const nuggets: Nuggets | undefined = bundleAt === -1 ? undefined : { bundle: args[bundleAt + 1]! }
  const mapFile = args.find((arg, i) => !arg.startsWith("--") && args[i - 1] !== "--nuggets") ?? join(root, "maps/main.txt")
  const figures = await benchWatchers(mapFile, { ...(quick ? { seconds: 6 } : {}), ...(nuggets ? { nuggets } : {}) })
  console.log(`Watchers on ${mapFile.split("/").pop()}: 21 players at 200 keys/s in all, a probe at 20 Ctrl-L/s`)
  console.table(figures)
}
