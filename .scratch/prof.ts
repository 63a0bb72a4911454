import { mkdtempSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { tmpdir } from "node:os"
import { bundle } from "../scripts/build.js"
import { Load, measureLatency, seededRandom } from "../scripts/bench/load.js"
import { startProcess, cpuMicros } from "../scripts/bench/process.js"
import { summarizeProfile } from "../scripts/bench/profile.js"
const dir = mkdtempSync(join(tmpdir(), "prof-"))
const file = join(dir, "n.cjs")
await bundle(file, { minify: false })
const server = await startProcess(["--cpu-prof", "--cpu-prof-dir", dir, file, "serve", process.argv[2] ?? "maps/main.txt", "1", "--host", "127.0.0.1"])
const load = await Load.join(server.port)
const random = seededRandom(1)
await measureLatency(load, 500, random)
const c0 = cpuMicros(server.pid).micros
await measureLatency(load, Number(process.argv[3] ?? 10000), random)
console.log("cpu/key", (cpuMicros(server.pid).micros - c0) / Number(process.argv[3] ?? 10000))
await load.close(); await server.stop()
const prof = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))!
const s = summarizeProfile(join(dir, prof), "n.cjs", 40)
console.log(s.busyMs); console.table(s.places.slice(0, 15)); console.table(s.functions.slice(0, 30))
