import { ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { runCli } from "./cli/nuggets.js"
import { withCliConsole } from "./console.js"
import { stderrLogging } from "./log.js"

const fail = (line: string | undefined) =>
  Effect.sync(() => {
    if (line) process.stderr.write(`nuggets: ${line}\n`)
    process.exitCode = 1
  })

runCli(process.argv).pipe(
  Effect.catchTags({
    CliError: (error) => fail(error.message)
  }),
  // @effect/cli has already printed what was wrong with the command line.
  Effect.catchIf(ValidationError.isValidationError, () => fail(undefined)),
  withCliConsole,
  Effect.provide(NodeContext.layer),
  Effect.provide(stderrLogging),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
