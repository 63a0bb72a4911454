import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { setFlagsFromString } from "node:v8"
import { runCli } from "./cli/nuggets.js"
import { nodeUdpLayer } from "./net/nodeUdp.js"
import { stderrLogging } from "./log.js"

// V8 lets its young generation grow to 32 MB under a burst (a flood of pages, 26 players
// moving) and keeps it for good; a server that idles most of the time is better served by
// the first size, read afresh at each growth (a flag given on the command line instead would
// not reach the binary, which takes no node options).
setFlagsFromString("--semi-space-growth-factor=1")

runCli(process.argv).pipe(
  Effect.flatMap((code) => Effect.sync(() => (process.exitCode = code))),
  Effect.provide(NodeContext.layer),
  Effect.provide(nodeUdpLayer),
  Effect.provide(stderrLogging),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
