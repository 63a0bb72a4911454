// Scratch: RSS of a server under the bench's load. args: node-flags... -- cmd...
import { Load, measureLatency, seededRandom } from "../scripts/bench/load.js"
import { peakRssMB, startProcess, cpuMicros } from "../scripts/bench/process.js"
import { readFileSync } from "node:fs"
const args = process.argv.slice(2)
const server = await startProcess(args)
const rss = () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))![1]) / 1024
const idle = rss()
const load = await Load.join(server.port)
const random = seededRandom(1)
await measureLatency(load, 300, random)
const cpu0 = cpuMicros(server.pid).micros
const run = await measureLatency(load, 2000, random)
const cpu1 = cpuMicros(server.pid).micros
console.log(JSON.stringify({ idle: Math.round(idle), after: Math.round(rss()), peak: Math.round(peakRssMB(server.pid)), cpuPerKey: Math.round((cpu1 - cpu0) / 2000), incomplete: run.incomplete }))
await load.close(); await server.stop()
