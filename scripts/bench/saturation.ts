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
  return {
    seconds: round(run.seconds, 2),
    keysPerSecond: Math.round(run.keysPerSecond),
    cpuMicrosPerKey: round(cpu / Math.max(1, run.movesInWindow)),
    serverCpuShare: round(cpu / 1e6 / run.seconds, 2),
    keysSent: run.keysSent,
    resent: run.resent,
    staleViews: run.staleViews
  }
}
