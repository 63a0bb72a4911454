// First: the heap's settings must hold before any other module runs.
import "./heap.js"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { runCli } from "./cli/nuggets.js"
import { nodeUdpLayer } from "./net/nodeUdp.js"
import { stderrLogging } from "./log.js"

runCli(process.argv).pipe(
  Effect.flatMap((code) => Effect.sync(() => (process.exitCode = code))),
  Effect.provide(NodeContext.layer),
  Effect.provide(nodeUdpLayer),
  Effect.provide(stderrLogging),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
