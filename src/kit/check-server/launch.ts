import { Data, Deferred, Effect, type Scope } from "effect"
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs"

/**
 * The server under check as a process of the checker's own (`check server -- COMMAND`):
 * started with `{map}` and `{seed}` in COMMAND replaced, in a process group of its own,
 * its stdin held open and silent (some C servers read it, and stop or crash at its end),
 * its output kept for the report. Its port is found the ways C servers announce it: the
 * UDP port the process (or a child of it) opened, read from /proc on Linux; else the
 * support library's `ready at port 'N'` on stderr, or the first number on stdout. Its exit
 * is noted with the time, on the checker's clock, so that a crash can be laid at the
 * datagram just before it. The scope ends it: SIGTERM to its group, then SIGKILL.
 */

export class LaunchError extends Data.TaggedError("LaunchError")<{ readonly message: string }> {}

export interface Ended {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** When, in ms on the checker's clock (the same as its sends'). */
  readonly at: number
}

export interface Launched {
  readonly pid: number
  readonly port: number
  /** How the port was found, for the report. */
  readonly foundBy: string
  /** Its exit, once it has ended. */
  readonly ended: () => Ended | undefined
  /** Completes when it ends. */
  readonly exit: Deferred.Deferred<Ended>
  /** The last of what it wrote on stderr. */
  readonly stderrTail: () => string
}

export interface LaunchOptions {
  /** COMMAND with its words; `{map}` and `{seed}` are replaced. */
  readonly command: ReadonlyArray<string>
  readonly map: string | undefined
  readonly seed: number
  /** How long it may take to open its port. */
  readonly startMs: number
}

/** COMMAND's words with `{map}` and `{seed}` replaced. */
export const commandLine = (command: ReadonlyArray<string>, map: string | undefined, seed: number): ReadonlyArray<string> =>
  command.map((word) => word.replaceAll("{map}", map ?? "{map}").replaceAll("{seed}", String(seed)))

/** How an exit reads: "exit status 1", "killed by SIGSEGV". */
export const exitWords = (ended: Pick<Ended, "code" | "signal">) =>
  ended.signal !== null ? `killed by ${ended.signal}` : `exit status ${ended.code}`

const keptBytes = 4096

/** The process and its children, by reading every process's parent in /proc. */
const processTree = (root: number): ReadonlyArray<number> => {
  const parents = new Map<number, number>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // The command in parentheses may hold spaces: the fields after its last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1")
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      parents.set(Number(entry), parent)
    } catch {
      // It ended meanwhile.
    }
  }
  const tree = [root]
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid)
  return tree
}

/** The UDP ports that the process `root` and its children have open, from /proc. */
export const udpPortsOf = (root: number): ReadonlyArray<number> => {
  const inodes = new Set<string>()
  for (const pid of processTree(root)) {
    let fds: ReadonlyArray<string> = []
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`)
        const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1]
        if (inode) inodes.add(inode)
      } catch {
        // Closed meanwhile.
      }
    }
  }
  const ports = new Set<number>()
  for (const table of ["/proc/net/udp", "/proc/net/udp6"]) {
    let text = ""
    try {
      text = readFileSync(table, "latin1")
    } catch {
      continue
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields.length < 10 || !inodes.has(fields[9]!)) continue
      ports.add(parseInt(fields[1]!.split(":")[1]!, 16))
    }
  }
  return [...ports]
}

/** What the server printed that names its port: the support library's line on stderr, else the first number on stdout. */
export const printedPort = (stdout: string, stderr: string): number | undefined => {
  const ready = /ready at port '(\d+)'/.exec(stderr)?.[1] ?? /\d+/.exec(stdout)?.[0]
  const port = ready === undefined ? undefined : Number(ready)
  return port !== undefined && port >= 1 && port <= 65535 ? port : undefined
}

const procAvailable = () => existsSync("/proc/self/fd")

export const launch = (options: LaunchOptions): Effect.Effect<Launched, LaunchError, Scope.Scope> =>
  Effect.gen(function*() {
    const [file, ...args] = commandLine(options.command, options.map, options.seed)
    if (file === undefined) return yield* new LaunchError({ message: "no COMMAND to start the server with" })
    const clock = yield* Effect.clock
    const exit = yield* Deferred.make<Ended>()
    /** Its stderr read to the end: a process's exit may come before the last of what it said. */
    const saidAll = yield* Deferred.make<void>()
    let ended: Ended | undefined
    let stdout = ""
    let stderr = ""
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        // Its own process group, so that a shell's children end with it.
        const started = spawn(file, args, { detached: true, stdio: ["pipe", "pipe", "pipe"] })
        // Text as the report quotes it: UTF-8, a character split between chunks kept whole (read
        // as latin1, a server's "—" came out as "â"); a byte that is not UTF-8 shows as U+FFFD.
        const outText = new TextDecoder()
        const errText = new TextDecoder()
        started.stdout.on("data", (chunk: Buffer) => void (stdout = (stdout + outText.decode(chunk, { stream: true })).slice(-keptBytes)))
        started.stderr.on("data", (chunk: Buffer) => void (stderr = (stderr + errText.decode(chunk, { stream: true })).slice(-keptBytes)))
        started.stderr.on("close", () => Deferred.unsafeDone(saidAll, Effect.void))
        started.stdin.on("error", () => undefined)
        const done = (code: number | null, signal: NodeJS.Signals | null) => {
          ended ??= { code, signal, at: clock.unsafeCurrentTimeMillis() }
          Deferred.unsafeDone(exit, Effect.succeed(ended))
        }
        started.on("exit", done)
        started.on("error", () => done(127, null))
        return started
      }),
      (started) =>
        Effect.gen(function*() {
          const group = (signal: NodeJS.Signals) => {
            try {
              if (started.pid !== undefined) process.kill(-started.pid, signal)
            } catch {
              // Gone already.
            }
          }
          if (ended === undefined) {
            group("SIGTERM")
            // A release runs uninterruptibly: the wait is made interruptible, or the timeout could not end it.
            yield* Deferred.await(exit).pipe(Effect.interruptible, Effect.timeoutOption(1000))
          }
          // Whatever it left behind in its group goes too.
          group("SIGKILL")
          started.stdin.destroy()
        })
    )
    const pid = child.pid
    if (pid === undefined) {
      yield* Deferred.await(exit)
      return yield* new LaunchError({ message: `could not start ${file}: no such program, or not executable` })
    }
    const withProc = procAvailable()
    const deadline = clock.unsafeCurrentTimeMillis() + options.startMs
    // No event tells that a process has bound a socket: /proc is looked at every few ms until it has.
    for (;;) {
      if (ended !== undefined) {
        // A child it left behind may hold the pipe open: what came within a second is what it said.
        yield* Deferred.await(saidAll).pipe(Effect.timeoutOption(1000))
        const said = stderr.trim().split("\n").slice(-3).join(" / ")
        return yield* new LaunchError({
          message: `${file} ended (${exitWords(ended)}) before it opened a UDP port${said ? `; it said: ${said.slice(0, 300)}` : ""}`
        })
      }
      const printed = printedPort(stdout, stderr)
      const opened = withProc ? udpPortsOf(pid) : []
      const port = opened.length === 1 ? opened[0] : printed !== undefined && (!withProc || opened.includes(printed)) ? printed : undefined
      if (port !== undefined) {
        return {
          pid,
          port,
          foundBy: opened.length === 1 ? "the UDP port it opened" : /ready at port/.test(stderr) ? "its stderr (ready at port)" : "the first number on its stdout",
          ended: () => ended,
          exit,
          stderrTail: () => stderr
        }
      }
      if (clock.unsafeCurrentTimeMillis() > deadline) {
        return yield* new LaunchError({ message: `${file} opened no UDP port within ${options.startMs / 1000} s` })
      }
      yield* Deferred.await(exit).pipe(Effect.timeoutOption(25))
    }
  })
