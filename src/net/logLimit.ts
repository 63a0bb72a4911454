/**
 * How many log lines a source of datagrams may cause: anyone can send a server garbage
 * as fast as the network carries it, and a line per datagram would fill the host's disk.
 * Each source gets the first few lines of each window; after that the rest are counted,
 * and one line per source says how many were held back when the window ends. A cap on
 * all sources together bounds a flood from many addresses the same way.
 *
 * Plain bookkeeping, given the time: the caller reads its clock and logs what comes back.
 */

export interface LogLimits {
  /** Lines one source may cause per window. */
  readonly perSource: number
  /** Lines all sources together may cause per window. */
  readonly total: number
  /** The window, in milliseconds. */
  readonly window: number
  /** Sources whose held-back count gets a line of its own at the end of a window; the rest share one. */
  readonly summaries: number
}

export const defaultLogLimits: LogLimits = { perSource: 5, total: 50, window: 60_000, summaries: 10 }

export interface LogLimiter {
  /**
   * Whether a line caused by `source` may be logged at `now`, and the lines that report
   * what the last window held back, to log first (when a window has just ended).
   */
  readonly admit: (source: string, now: number) => { readonly log: boolean; readonly held: ReadonlyArray<string> }
  /** Ends the window if its time is up (or `force`): the lines that report what it held back. */
  readonly flush: (now: number, force?: boolean) => ReadonlyArray<string>
}

/** Sources counted apart in one window; past that they are counted together. */
const maxCounted = 10_000

export const makeLogLimiter = (limits: LogLimits = defaultLogLimits): LogLimiter => {
  let windowStart: number | undefined
  let total = 0
  /** Lines logged per source in this window; then how many more were held back. */
  const logged = new Map<string, number>()
  const held = new Map<string, number>()

  const flush = (now: number, force = false): ReadonlyArray<string> => {
    if (windowStart === undefined || (!force && now - windowStart < limits.window)) return []
    const seconds = Math.round((now - windowStart) / 1000)
    const counts = Array.from(held).sort(([, a], [, b]) => b - a)
    const lines = counts.slice(0, limits.summaries).map(([source, count]) =>
      `${source}: ${count} more lines in the last ${seconds} s, not logged`
    )
    const rest = counts.slice(limits.summaries)
    if (rest.length > 0) {
      const count = rest.reduce((sum, [, each]) => sum + each, 0)
      lines.push(`${rest.length} other source${rest.length === 1 ? "" : "s"}: ${count} more lines in the last ${seconds} s, not logged`)
    }
    windowStart = undefined
    total = 0
    logged.clear()
    held.clear()
    return lines
  }

  return {
    admit: (source, now) => {
      const ended = flush(now)
      windowStart ??= now
      const count = logged.get(source) ?? 0
      if (count < limits.perSource && total < limits.total) {
        logged.set(source, count + 1)
        total++
        return { log: true, held: ended }
      }
      // A flood from countless addresses must not grow the count itself without bound.
      const key = held.has(source) || held.size < maxCounted ? source : "(more sources)"
      held.set(key, (held.get(key) ?? 0) + 1)
      return { log: false, held: ended }
    },
    flush
  }
}
