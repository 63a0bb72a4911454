import { Data } from "effect"

/** A reason to stop with a non-zero exit: printed as one line, `nuggets: <message>`. */
export class CliError extends Data.TaggedError("CliError")<{ readonly message: string }> {}
