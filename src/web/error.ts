import { Data } from "effect"

/**
 * Why the web side could not start, in words that name no option: the command line adds
 * which option was wrong (`--web`, `--web-name`) and what helps. `cause` is what the system
 * reported, when it did (its code, EADDRINUSE..., read with `errnoOf`).
 */
export class WebError extends Data.TaggedError("WebError")<{
  readonly reason: "BadAddress" | "BadName" | "PortInUse" | "NoPermission" | "NoSuchAddress" | "Listen" | "BadRecording"
  readonly message: string
  readonly cause?: unknown
}> {}
