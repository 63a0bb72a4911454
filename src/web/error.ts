import { Data } from "effect"

/** Why the web side could not start: printed as one line by the CLI. */
export class WebError extends Data.TaggedError("WebError")<{
  readonly reason: "BadAddress" | "PortInUse" | "NoPermission" | "Listen" | "BadRecording"
  readonly message: string
}> {}
