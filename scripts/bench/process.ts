/** A game server (real or stand-in) run as its own process, and what /proc says about it. */
import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

export const root = fileURLToPath(new URL("../../", import.meta.url))

export interface ServerProcess {
  readonly pid: number
  readonly port: number
  /** Everything it wrote to stderr so far (its log). */
  readonly log: () => string
  /** SIGTERM, then waits for it to exit. */
  readonly stop: () => Promise<void>
}

/** Starts `node <args>` (or `program <args>`) and waits for its "waiting at port N" line. */
export const startProcess = async (args: ReadonlyArray<string>, program: string = process.execPath): Promise<ServerProcess> => {
  const child: ChildProcess = spawn(program, args, {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-20_000)))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(" ")}: no port announced within 30 s\n${stderr}`)), 30_000)
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const found = /waiting at port (\d+)/.exec(stdout)
      if (found) {
        clearTimeout(timer)
        resolve(Number(found[1]))
      }
    })
    void exited.then((code) => reject(new Error(`${args.join(" ")} exited with ${code}\n${stderr}`)))
  })
  return {
    pid: child.pid!,
    port,
    log: () => stderr,
    stop: async () => {
      child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
      await exited
      clearTimeout(timer)
    }
  }
}

/**
 * CPU time the process has used, in µs, over all its threads: from each thread's
 * schedstat (nanoseconds), or from utime+stime in /proc/<pid>/stat (clock ticks) if
 * schedstat is missing.
 */
export const cpuMicros = (pid: number): { readonly micros: number; readonly source: "schedstat" | "stat" } => {
  try {
    let nanos = 0
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      nanos += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0])
    }
    if (Number.isFinite(nanos) && nanos > 0) return { micros: nanos / 1000, source: "schedstat" }
  } catch {
    // fall through to /proc/<pid>/stat
  }
  return { micros: statCpuMicros(pid), source: "stat" }
}

/** CPU µs of the main thread alone (where the JavaScript runs), from its schedstat. */
export const mainThreadCpuMicros = (pid: number): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]) / 1000
  } catch {
    return NaN
  }
}

const clockTicksPerSecond = 100

/** utime + stime from /proc/<pid>/stat, in µs (10 ms resolution). */
export const statCpuMicros = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1e6) / clockTicksPerSecond
}

/**
 * Resident memory now, in MB, by kind: anonymous (the heaps: V8's, malloc's) and file-backed
 * (the program's own pages, mapped from its file: the single executable's, or node's). The
 * file-backed share depends on the page cache as much as on the program (the kernel maps
 * the neighbours of each page it faults in, when they are cached), so the heaps are
 * compared by the anonymous share.
 */
export const residentMB = (pid: number): { readonly anonymous: number; readonly fileBacked: number } => {
  const kb = statusKB(pid)
  return { anonymous: kb("RssAnon") / 1024, fileBacked: (kb("RssFile") + kb("RssShmem")) / 1024 }
}

/** The kB fields of /proc/<pid>/status, read once: `VmHWM`, `RssAnon`... */
const statusKB = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN)
}

/** Resident memory now (VmRSS), MB. */
export const rssMB = (pid: number): number => statusKB(pid)("VmRSS") / 1024

/** Peak resident set size (VmHWM) in MB. */
export const peakRssMB = (pid: number): number => statusKB(pid)("VmHWM") / 1024
