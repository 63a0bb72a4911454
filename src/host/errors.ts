import { Data } from "effect"

/**
 * A host cannot start as asked: its maps (`--maps`), its ports (`--ports`). The message
 * names what is wrong, in the words the command line prints.
 */
export class HostError extends Data.TaggedError("HostError")<{
  readonly reason: "Maps" | "Ports"
  readonly message: string
}> {}

/**
 * A new game refused, and why in words: a map the host does not have (`UnknownMap`), a
 * request it cannot read (`BadRequest`), as many games as it runs at once (`Full`), too
 * many new games too fast (`TooFast`), no free port or recording (`CannotStart`), or the
 * host stopping (`Stopping`).
 */
export class GameRefused extends Data.TaggedError("GameRefused")<{
  readonly reason: "UnknownMap" | "BadRequest" | "Full" | "TooFast" | "CannotStart" | "Stopping"
  readonly message: string
}> {}
