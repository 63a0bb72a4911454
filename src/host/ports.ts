import { Either } from "effect"
import { HostError } from "./errors.js"

/** `--ports FIRST-LAST`: the UDP ports games may take, both ends included. */
export interface PortRange {
  readonly first: number
  readonly last: number
}

const usage = "write FIRST-LAST, e.g. 4000-4099"

/** Reads `--ports`: two ports (1..65535), the first no larger than the last. */
export const parsePortRange = (text: string): Either.Either<PortRange, HostError> => {
  const bad = (why: string) => Either.left(new HostError({ reason: "Ports", message: `--ports — ${JSON.stringify(text)} ${why}; ${usage}` }))
  const match = /^(\d{1,5})-(\d{1,5})$/.exec(text)
  if (!match) return bad("is not a range of ports")
  const [first, last] = [Number(match[1]), Number(match[2])]
  if (first < 1 || last > 65535) return bad("goes beyond the ports 1 to 65535")
  if (first > last) return bad("ends before it starts")
  return Either.right({ first, last })
}

export const rangeSize = (range: PortRange) => range.last - range.first + 1

/**
 * The ports of a range, handed out in turn and given back when a game ends. Without a
 * range, each game gets a free port of the system's choosing (0).
 */
export class PortPool {
  private readonly taken = new Set<number>()
  private next: number

  constructor(private readonly range: PortRange | undefined) {
    this.next = range?.first ?? 0
  }

  /** The ports to try for a new game, in order, none taken by a game of ours: one, 0, without a range. */
  candidates(): ReadonlyArray<number> {
    const range = this.range
    if (range === undefined) return [0]
    const size = rangeSize(range)
    const order: Array<number> = []
    for (let i = 0; i < size; i++) {
      const port = range.first + ((this.next - range.first + i) % size)
      if (!this.taken.has(port)) order.push(port)
    }
    return order
  }

  take(port: number): void {
    if (this.range === undefined) return
    this.taken.add(port)
    // The next game tries the port after: a port just given back is the last to be taken again.
    this.next = port === this.range.last ? this.range.first : port + 1
  }

  give(port: number): void {
    this.taken.delete(port)
  }
}
