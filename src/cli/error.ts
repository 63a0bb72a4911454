import { Data } from "effect"

/** A reason to stop with a non-zero exit: printed as one line, `nuggets: <message>`. */
export class CliError extends Data.TaggedError("CliError")<{ readonly message: string }> {}

/** What the system said when a file could not be read or written, in words. */
export const fileFailure = (code: string | undefined, fallback = ""): string => {
  switch (code) {
    case "ENOENT":
      return "no such file or folder"
    case "EACCES":
    case "EPERM":
      return "permission denied"
    case "EISDIR":
      return "it is a folder"
    case "ENOTDIR":
      return "a part of the path is not a folder"
    case "EEXIST":
      return "it already exists"
    case "EROFS":
      return "the file system is read-only"
    case "ENOSPC":
      return "no space left"
    default:
      return fallback || `failed (${code ?? "unknown error"})`
  }
}

export const errnoOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code

/**
 * What a command may fail with besides a `CliError`: the errors of the services it runs
 * (UDP, the client, the web, recordings), each worded where it happens.
 */
export interface ServiceFailure {
  readonly _tag: string
  readonly message: string
  readonly reason?: string
  /** The file a recording could not write, with the system's code. */
  readonly path?: string
  readonly code?: string | undefined
}

/**
 * The one place a command's failure becomes the line the user reads: what each service
 * said, with the option that helps where there is one.
 */
export const toCliError = (failure: ServiceFailure): CliError => {
  if (failure instanceof CliError) return failure
  switch (`${failure._tag}/${failure.reason ?? ""}`) {
    case "UdpError/PortInUse":
      return new CliError({ message: `${failure.message} — --port 0 picks a free one` })
    case "WebError/PortInUse":
      return new CliError({ message: `${failure.message} — --web 0 picks a free one` })
    case "RecordingError/Open":
      return new CliError({ message: `${failure.path} — cannot record: ${fileFailure(failure.code, failure.message)}` })
    default:
      return new CliError({ message: failure.message })
  }
}
