/**
 * The ceiling of one `nuggets host` on this machine: how many games of 4 players at a
 * person's pace it holds with a p99 latency (KEY to DISPLAY) of 10 ms at most, with its
 * resident memory. Each count is a host of its own, its players in processes of their own
 * (see `paced.ts`), whose CPU and event-loop delay are shown beside, so that a figure is the
 * host's and not the load's. The counts climb until the p99 is over the target (or the
 * last is measured).
 * `node --import tsx scripts/bench/ceiling.ts [--quick] [--games 200,400,...] [--profile DIR]`
 * (--profile: the host runs under --cpu-prof, its profile written to DIR when it stops).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { hostLoopDelay, startHost } from "./host.js"
import { type BlockFigures, PacedLoad } from "./paced.js"
import { cpuMicros, peakRssMB, rssMB } from "./process.js"
import { bundle } from "../build.js"
import { bundleNuggets, type Nuggets, serverSeed } from "./server.js"
import { round, summarize } from "./stats.js"

/** The p99 a host must hold, µs. */
export const ceilingP99Micros = 10_000

export interface CeilingStep {
  readonly games: number
  readonly blocks: number
  readonly keysPerSecond: number
  /** Over every key measured: the median, and the p99 the target is held to. */
  readonly latencyMedianMicros: number
  readonly latencyP99Micros: number
  /**
   * Each block's p99: their median, least and most. The machine is shared: a moment when
   * another program ran shows in one block's, where the p99 over all keys hides it.
   */
  readonly blockP99sMicros: { readonly median: number; readonly least: number; readonly most: number }
  /** The host's CPU as a share of one core, and per key (timers included). */
  readonly hostCpuShare: number
  readonly hostCpuMicrosPerKey: number
  readonly rssMB: number
  readonly peakRssMB: number
  readonly rssPerGameMB: number
  /** How late the host's event loop ran (its /metrics): the median of the blocks' p99s, and the most, µs. */
  readonly hostLoopDelayP99Micros: number
  readonly hostLoopDelayMaxMicros: number
  /** The players' processes: their CPU (a share of one core, all of them) and their event loops' delay (the median of the blocks' p99s, the most). */
  readonly loadCpuShare: number
  readonly loadLoopDelayP99Micros: number
  readonly loadLoopDelayMaxMicros: number
  /** The machine's load average (1 minute) as the step ended. */
  readonly loadAverage: number
}

export interface StepOptions {
  readonly warmup: number
  /** Blocks of `seconds` each, measured. */
  readonly blocks: number
  readonly seconds: number
  /** Processes the players run in. */
  readonly processes: number
  readonly profileDir?: string
}

const median = (values: ReadonlyArray<number>) => summarize(values).median
const loadAverage = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0])

/** A host of `games` games, 4 players each at a person's pace: `blocks` blocks of keys, each measured on its own. */
export const measureStep = async (nuggets: Nuggets, games: number, dir: string, options: StepOptions): Promise<CeilingStep> => {
  const host = await startHost(nuggets, games, dir, options.profileDir ? { nodeArgs: ["--cpu-prof", "--cpu-prof-dir", options.profileDir] } : {})
  let load: PacedLoad | undefined
  try {
    load = await PacedLoad.join(host.ports, 4, serverSeed, options.processes)
    await load.block(options.warmup)
    const blocks: Array<BlockFigures & { readonly hostCpuMicros: number; readonly hostLoop: Awaited<ReturnType<typeof hostLoopDelay>> }> = []
    for (let block = 0; block < options.blocks; block++) {
      let hostCpuMicros = 0
      let hostLoop = { p99Micros: NaN, maxMicros: NaN }
      const figures = await load.block(options.seconds, async () => {
        // A scrape starts the host's histogram afresh: the next one is of this block alone.
        await hostLoopDelay(host.lobby)
        const before = cpuMicros(host.pid).micros
        return async () => {
          hostCpuMicros = cpuMicros(host.pid).micros - before
          hostLoop = await hostLoopDelay(host.lobby)
        }
      })
      blocks.push({ ...figures, hostCpuMicros, hostLoop })
    }
    const sum = (pick: (block: (typeof blocks)[number]) => number) => blocks.reduce((total, block) => total + pick(block), 0)
    const [keys, seconds, hostCpu] = [sum((block) => block.keys), sum((block) => block.seconds), sum((block) => block.hostCpuMicros)]
    const p99s = blocks.map((block) => summarize(block.samples).p99)
    const latency = summarize(blocks.flatMap((block) => block.samples))
    const rss = rssMB(host.pid)
    return {
      games,
      blocks: blocks.length,
      keysPerSecond: round(keys / seconds),
      latencyMedianMicros: round(latency.median),
      latencyP99Micros: round(latency.p99),
      blockP99sMicros: { median: round(median(p99s)), least: round(Math.min(...p99s)), most: round(Math.max(...p99s)) },
      hostCpuShare: round(hostCpu / (seconds * 1e6), 3),
      hostCpuMicrosPerKey: round(hostCpu / keys),
      rssMB: round(rss),
      peakRssMB: round(peakRssMB(host.pid)),
      rssPerGameMB: round(rss / games, 2),
      hostLoopDelayP99Micros: round(median(blocks.map((block) => block.hostLoop.p99Micros))),
      hostLoopDelayMaxMicros: round(Math.max(...blocks.map((block) => block.hostLoop.maxMicros))),
      loadCpuShare: round(sum((block) => block.loadCpuShare * block.seconds) / seconds, 3),
      loadLoopDelayP99Micros: round(median(blocks.map((block) => block.loadLoopDelayP99Micros))),
      loadLoopDelayMaxMicros: round(Math.max(...blocks.map((block) => block.loadLoopDelayMaxMicros))),
      loadAverage: loadAverage()
    }
  } finally {
    await load?.close()
    await host.stop()
  }
}

export interface CeilingFigures {
  readonly targetP99Micros: number
  readonly steps: ReadonlyArray<CeilingStep>
  /** The most games a host held within the target, with its memory; undefined if none did. */
  readonly ceiling: { readonly games: number; readonly rssMB: number; readonly rssPerGameMB: number } | undefined
}

/** Hosts of each count in turn, until one misses the target. */
export const benchCeiling = async (
  options: { readonly nuggets?: Nuggets; readonly counts?: ReadonlyArray<number> } & Partial<StepOptions> = {}
): Promise<CeilingFigures> => {
  const { blocks = 5, counts = [100, 150, 200, 300, 400, 600, 800, 1000], processes = 2, seconds = 4, warmup = 5 } = options
  const dir = mkdtempSync(join(tmpdir(), "nuggets-bench-ceiling-"))
  try {
    // Profiled, the bundle keeps its names.
    const nuggets: Nuggets = options.nuggets ??
      (options.profileDir ? await bundle(join(dir, "nuggets.cjs"), { minify: false }).then(() => ({ bundle: join(dir, "nuggets.cjs") })) : await bundleNuggets(dir))
    const steps: Array<CeilingStep> = []
    for (const games of counts) {
      process.stderr.write(`bench: a host of ${games} games...\n`)
      const step = await measureStep(nuggets, games, dir, { blocks, processes, seconds, warmup, ...(options.profileDir ? { profileDir: options.profileDir } : {}) })
      steps.push(step)
      if (step.latencyP99Micros > ceilingP99Micros) break
    }
    const held = steps.filter((step) => step.latencyP99Micros <= ceilingP99Micros).at(-1)
    return {
      targetP99Micros: ceilingP99Micros,
      steps,
      ceiling: held && { games: held.games, rssMB: held.rssMB, rssPerGameMB: held.rssPerGameMB }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The steps as a table, one column a count. */
export const ceilingTable = (figures: CeilingFigures) => {
  const row = (pick: (step: CeilingStep) => number | string) => Object.fromEntries(figures.steps.map((step) => [`${step.games} games`, pick(step)]))
  return {
    "keys per second": row((step) => step.keysPerSecond),
    "latency median µs": row((step) => step.latencyMedianMicros),
    "latency p99 µs (target ≤ 10,000)": row((step) => step.latencyP99Micros),
    "each block's p99 µs: median | least | most": row((step) => `${step.blockP99sMicros.median} | ${step.blockP99sMicros.least} | ${step.blockP99sMicros.most}`),
    "host CPU, share of a core": row((step) => step.hostCpuShare),
    "host CPU µs per key": row((step) => step.hostCpuMicrosPerKey),
    "host RSS MB": row((step) => step.rssMB),
    "host RSS MB a game (RSS / games)": row((step) => step.rssPerGameMB),
    "host RSS MB each game more adds (from the count before)": row((step) => {
      const before = figures.steps[figures.steps.indexOf(step) - 1]
      return before === undefined ? "-" : round((step.rssMB - before.rssMB) / (step.games - before.games), 2)
    }),
    "host's event loop delay µs, p99 | most": row((step) => `${step.hostLoopDelayP99Micros} | ${step.hostLoopDelayMaxMicros}`),
    "players' CPU, share of a core": row((step) => step.loadCpuShare),
    "players' event loop delay µs, p99 | most": row((step) => `${step.loadLoopDelayP99Micros} | ${step.loadLoopDelayMaxMicros}`),
    "load average (1 min)": row((step) => step.loadAverage)
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2)
  const valueOf = (flag: string) => {
    const at = args.indexOf(flag)
    return at === -1 ? undefined : args[at + 1]
  }
  const quick = args.includes("--quick")
  const counts = valueOf("--games")?.split(",").map(Number)
  const processes = valueOf("--processes")
  const profileDir = valueOf("--profile")
  const figures = await benchCeiling({
    ...(counts ? { counts } : {}),
    ...(processes ? { processes: Number(processes) } : {}),
    ...(profileDir ? { profileDir } : {}),
    ...(quick ? { warmup: 3, seconds: 3, blocks: 3 } : {})
  })
  console.table(ceilingTable(figures))
  console.log(figures.ceiling
    ? `ceiling: ${figures.ceiling.games} games with p99 ≤ 10 ms, in ${figures.ceiling.rssMB} MB (${figures.ceiling.rssPerGameMB} MB a game)`
    : "ceiling: no count measured held a p99 ≤ 10 ms")
}
