/**
 * A page soak: 10,000 pages (2,000 with --quick), ten at a time, that each open `/play`,
 * SPECTATE until the GRID, and leave (half with a reset, half with an orderly close), against
 * `nuggets serve --web`: pages per second, server CPU per page, and its resident memory at
 * the start, at its peak and after, and whether a fresh page is still answered. The test
 * suite's hostile rows open 200; the soak's figures are here.
 * `node --import tsx scripts/bench/pages.ts [--quick] [--nuggets BUNDLE] [MAP]` prints them.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { cpuMicros, root, type ServerProcess } from "./process.js"
import { bundleNuggets, type Nuggets, startWebServer } from "./server.js"
import { round } from "./stats.js"

/** Resident memory now (VmRSS), MB; NaN once the process is gone. */
const rssMB = (pid: number): number => {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024
  } catch {
    return NaN
  }
}

/** The handshake a browser sends for `/play` (the key is RFC 6455's sample: the server only hashes it). */
const upgradeRequest = (host: string) =>
  `GET /play HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
  "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"

/** A client's text frame, masked as clients' must be, of a short message. */
const maskedTextFrame = (text: string): Buffer => {
  const payload = Buffer.from(text)
  const mask = Buffer.from([1, 2, 3, 4])
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload.map((byte, i) => byte ^ mask[i % 4]!)])
}

/**
 * One page on a plain socket: the upgrade to `/play`, SPECTATE, and the answer until its
 * GRID. The socket, open, if the GRID came within `timeoutMs`; otherwise it is destroyed.
 */
const spectatingPage = (url: string, timeoutMs = 5000): Promise<Socket | undefined> => {
  const { host, hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(upgradeRequest(host)))
    let text = ""
    let upgraded = false
    let settled = false
    const settle = (answered: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.off("data", onData)
      if (!answered) socket.destroy()
      resolve(answered ? socket : undefined)
    }
    const onData = (chunk: Buffer) => {
      text += chunk.toString("latin1")
      if (!upgraded) {
        const headEnd = text.indexOf("\r\n\r\n")
        if (headEnd === -1) return
        if (!text.startsWith("HTTP/1.1 101 ")) return settle(false)
        upgraded = true
        text = text.slice(headEnd + 4)
        socket.write(maskedTextFrame("SPECTATE"))
      }
      if (text.includes("GRID")) settle(true)
    }
    const timer = setTimeout(() => settle(false), timeoutMs)
    // After the GRID, an error is the server's answer to the page leaving, not the soak's failure.
    socket.on("error", () => settle(false))
    socket.on("data", onData)
  })
}

/** What a fresh browser page does first: `/` is the game's page, and a page at `/play` is shown the GRID. */
const answersAFreshPage = async (url: string): Promise<boolean> => {
  try {
    const page = await fetch(url)
    if (page.status !== 200 || !(await page.text()).includes('id="grid"')) return false
  } catch {
    return false
  }
  const socket = await spectatingPage(url)
  socket?.destroy()
  return socket !== undefined
}

export interface PageSoakFigures {
  readonly pages: number
  /** Pages that got no GRID within 5 s. */
  readonly pagesUnanswered: number
  readonly pagesPerSecond: number
  readonly cpuMicrosPerPage: number
  readonly rssStartMB: number
  /** The highest of VmRSS sampled every 100 ms during the soak. */
  readonly rssPeakMB: number
  /** Once it came back within `rssBackWithinMB` of the start, or after 20 s. */
  readonly rssAfterMB: number
  readonly rssAfterWaitSeconds: number
  readonly answersAFreshPageAfter: boolean
}

/** How near the start the memory must come back before the wait for it ends early. */
export const rssBackWithinMB = 10

/**
 * `pages` pages against a fresh `serve --web`, ten at a time: what stays once they are gone
 * is what is measured; with more at once the garbage of those in flight grows V8's heap
 * further, and on a busy machine V8 gives it back only once the machine is idle.
 */
export const benchPageSoak = async (
  mapFile: string,
  options: { readonly pages?: number; readonly nuggets?: Nuggets } = {}
): Promise<PageSoakFigures> => {
  const { pages = 10_000 } = options
  const dir = mkdtempSync(join(tmpdir(), "nuggets-bench-soak-"))
  let server: (ServerProcess & { readonly url: string }) | undefined
  try {
    const nuggets = options.nuggets ?? (await bundleNuggets(dir))
    server = await startWebServer(nuggets, mapFile)
    const { pid, url } = server
    // Served once the way the soak will use it, so that the start is not the lowest it can be.
    await answersAFreshPage(url)
    const rssStartMB = rssMB(pid)
    let rssPeakMB = rssStartMB
    const sampling = setInterval(() => (rssPeakMB = Math.max(rssPeakMB, rssMB(pid))), 100)
    let pagesUnanswered = 0
    let next = 0
    const cpuBefore = cpuMicros(pid).micros
    const started = performance.now()
    await Promise.all(Array.from({ length: 10 }, async () => {
      while (next < pages) {
        const index = next++
        const socket = await spectatingPage(url)
        if (socket === undefined) pagesUnanswered++
        // Half leave with a reset, half with an orderly close.
        else if (index % 2 === 0) socket.resetAndDestroy()
        else socket.end()
      }
    }))
    const seconds = (performance.now() - started) / 1000
    const cpu = cpuMicros(pid).micros - cpuBefore
    clearInterval(sampling)
    rssPeakMB = Math.max(rssPeakMB, rssMB(pid))
    // A collector frees memory in its own time: waited for, as the hostile tests do.
    const waitStarted = performance.now()
    let rssAfterMB = rssMB(pid)
    while (rssAfterMB - rssStartMB > rssBackWithinMB && performance.now() - waitStarted < 20_000) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      rssAfterMB = rssMB(pid)
    }
    const rssAfterWaitSeconds = (performance.now() - waitStarted) / 1000
    return {
      pages,
      pagesUnanswered,
      pagesPerSecond: round(pages / seconds),
      cpuMicrosPerPage: round(cpu / pages),
      rssStartMB: round(rssStartMB, 1),
      rssPeakMB: round(rssPeakMB, 1),
      rssAfterMB: round(rssAfterMB, 1),
      rssAfterWaitSeconds: round(rssAfterWaitSeconds, 1),
      answersAFreshPageAfter: await answersAFreshPage(url)
    }
  } finally {
    await server?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2)
  const bundleAt = args.indexOf("--nuggets")
  const nuggets: Nuggets | undefined = bundleAt === -1 ? undefined : { bundle: args[bundleAt + 1]! }
  const mapFile = args.find((arg, i) => !arg.startsWith("--") && args[i - 1] !== "--nuggets") ?? join(root, "maps/main.txt")
  const figures = await benchPageSoak(mapFile, { pages: args.includes("--quick") ? 2000 : 10_000, ...(nuggets ? { nuggets } : {}) })
  console.log(`Page soak on ${mapFile.split("/").pop()}: pages that open /play, SPECTATE until the GRID and leave, ten at a time`)
  console.table(figures)
}
