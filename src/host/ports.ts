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
