/** Section 4: keys per second the server sustains with 26 players pressing as fast as it answers. */
import { type Load, saturate, seededRandom } from "./load.js"
import { cpuMicros, type ServerProcess } from "./process.js"
import { round } from "./stats.js"

export interface Saturation {
  readonly seconds: number
  readonly keysPerSecond: number
  readonly cpuMicrosPerKey: number
  /** Share of one core the server used in the window. */
  readonly serverCpuShare: number
  readonly keysSent: number
  readonly resent: number
  /** Clients whose last DISPLAY, once all was quiet, was not their view (see `staleViews`). */
  readonly staleViews: number
}

export const benchSaturation = async (server: ServerProcess, load: Load, seconds: number, seed: number): Promise<Saturation> => {
  let cpuAtStart = 0
  let cpuAtEnd = 0
  const run = await saturate(load, seconds, seededRandom(seed), (phase) => {
    if (phase === "start") cpuAtStart = cpuMicros(server.pid).micros
    else cpuAtEnd = cpuMicros(server.pid).micros
  })
  const cpu = cpuAtEnd - cpuAtStart
  const stale = await staleViews(load)
  return {
    seconds: round(run.seconds, 2),
    keysPerSecond: Math.round(run.keysPerSecond),
    cpuMicrosPerKey: round(cpu / Math.max(1, run.movesInWindow)),
    serverCpuShare: round(cpu / 1e6 / run.seconds, 2),
    keysSent: run.keysSent,
    resent: run.resent,
    staleViews: stale
  }
}

/**
 * Clients whose latest DISPLAY differs from the whole one Ctrl-L brings (asked of each in
 * turn, once all is quiet): a DISPLAY they were owed was lost, or never sent.
 */
export const staleViews = async (load: Load, deadlineMs = 2000): Promise<number> => {
  let stale = 0
  for (const client of load.all) {
    const before = client.display
    const fresh = new Promise<Buffer | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), deadlineMs)
      client.onDisplay = (each) => {
        clearTimeout(timer)
        resolve(each.display)
      }
    })
    client.send("KEY \f")
    const after = await fresh
    client.onDisplay = undefined
    if (before === undefined || after === undefined || !before.equals(after)) stale++
  }
  return stale
}
