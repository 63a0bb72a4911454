import * as NodeContext from "@effect/platform-node/NodeContext"
import { Console, Effect, Logger } from "effect"
import { runCli } from "../../src/cli/nuggets.js"
import { nodeUdpLayer } from "../../src/net/nodeUdp.js"

export interface Ran {
  readonly code: number
  /** What went to stdout, each line ended by a newline. */
  readonly stdout: string
  readonly stderr: string
  /** What was logged (which the program writes to stderr), a line per entry: `LEVEL message`. */
  readonly log: string
}

/**
 * `nuggets ARGS...` run in this process through the CLI's own entry (what `main.ts` runs),
 * with what it prints captured: the exit code, stdout and stderr. Relative paths are read
 * from the folder the tests run in, the project's.
 */
export const nuggetsInProcess = (...args: ReadonlyArray<string>): Promise<Ran> => {
  let stdout = ""
  let stderr = ""
  let log = ""
  const logger = Logger.make(({ logLevel, message }) => {
    log += `${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}\n`
  })
  const toOut = (...parts: ReadonlyArray<unknown>) => void (stdout += parts.join(" ") + "\n")
  const toErr = (...parts: ReadonlyArray<unknown>) => void (stderr += parts.join(" ") + "\n")
  const program = Console.consoleWith((original) =>
    runCli(["node", "nuggets", ...args]).pipe(
      Effect.withConsole({
        ...original,
        log: (...parts) => Effect.sync(() => toOut(...parts)),
        error: (...parts) => Effect.sync(() => toErr(...parts)),
        unsafe: { ...original.unsafe, log: toOut, error: toErr }
      })
    )
  )
  return Effect.runPromise(program.pipe(Effect.provide(NodeContext.layer), Effect.provide(nodeUdpLayer), Effect.provide(Logger.replace(Logger.defaultLogger, logger))))
    .then((code) => ({ code, stdout, stderr, log }))
}
