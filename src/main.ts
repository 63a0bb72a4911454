import { ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { runCli } from "./cli.js"

runCli(process.argv).pipe(
  // @effect/cli has already printed what was wrong with the command line.
  Effect.catchIf(ValidationError.isValidationError, () => Effect.sync(() => { process.exitCode = 1 })),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: false })
)
