import { afterEach, beforeEach } from "vitest"
let start = process.cpuUsage(); let t0 = Date.now()
beforeEach(() => { start = process.cpuUsage(); t0 = Date.now() })
afterEach((ctx: any) => { const u = process.cpuUsage(start); console.log(`CPUT ${((u.user + u.system) / 1e6).toFixed(2)} ${((Date.now() - t0) / 1000).toFixed(1)} ${ctx.task.name.slice(0,90)}`) })
