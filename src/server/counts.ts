import { Context, Layer } from "effect"

/** Why a datagram was not taken: a message no one can read, a refusal, or over a sender's limit. */
export const refusedReasons = ["malformed", "refused", "limited"] as const
export type RefusedReason = typeof refusedReasons[number]

/**
 * What the games of this process have done since it started, counted as it happens: plain
 * numbers, a `++` each on the hot path, read when someone asks (`/metrics`). Every game of
 * a process counts into the same one.
 */
export class Counts {
  datagramsReceived = 0
  datagramsSent = 0
  keys = 0
  readonly refused: Record<RefusedReason, number> = { malformed: 0, refused: 0, limited: 0 }
}

export class ProcessCounts extends Context.Tag("nuggets/ProcessCounts")<ProcessCounts, Counts>() {}

/** One tally for the whole process. */
export const processCountsLayer: Layer.Layer<ProcessCounts> = Layer.sync(ProcessCounts, () => new Counts())
