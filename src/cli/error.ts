import { Data } from "effect"
import { UdpError } from "../net/udp.js"
import { RecordingError, recordingWords } from "../recording/lines.js"
import { WebError } from "../web/error.js"

/** A reason to stop with a non-zero exit: printed as one line, `nuggets: <message>`. */
export class CliError extends Data.TaggedError("CliError")<{ readonly message: string }> {}

/**
 * What a command may fail with besides a `CliError`: the errors of the services it runs
 * (UDP, the client, the web, recordings), each with its own message.
 */
export interface ServiceFailure {
  readonly _tag: string
  readonly message: string
}

/** A web failure as the command line tells it: which option it was about, and what helps. */
const webFailure = (failure: WebError): string => {
  switch (failure.reason) {
    case "BadAddress":
      return `--web — ${failure.message}`
    case "BadName":
      return `--web-name — ${failure.message}`
    case "PortInUse":
      return `${failure.message} — --web 0 picks a free one`
    default:
      return failure.message
  }
}

/**
 * The one place a command's failure becomes the line the user reads: what each service
 * said, with the option that helps where there is one.
 */
export const toCliError = (failure: ServiceFailure): CliError => {
  if (failure instanceof CliError) return failure
  if (failure instanceof UdpError && failure.reason === "PortInUse") {
    return new CliError({ message: `${failure.message} — --port 0 picks a free one` })
  }
  if (failure instanceof WebError) return new CliError({ message: webFailure(failure) })
  if (failure instanceof RecordingError) {
    return new CliError({ message: recordingWords(failure) })
  }
  return new CliError({ message: failure.message })
}
