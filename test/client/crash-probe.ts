/**
 * Takes over the terminal with the real Terminal layer, draws, then at the first key crashes in the way named
 * by argv[2]: "defect" (an Effect defect), "throw" (an exception outside Effect) or "exit"
 * (process.exit while the screen is open). The terminal must be restored every time.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Stream } from "effect"
import { Terminal, terminalLayer } from "../../src/client/terminal.js"

const how = process.argv[2]

Effect.gen(function*() {
  const terminal = yield* Terminal
  yield* terminal.draw([{ text: "the screen is open", styles: " ".repeat(18) }])
  // It crashes at the first key, once the test has seen the screen open, however slow the machine.
  yield* terminal.keys.pipe(Stream.take(1), Stream.runDrain)
  if (how === "defect") return yield* Effect.dieMessage("crash probe")
  if (how === "exit") process.exit(3)
  if (how === "throw") setTimeout(() => { throw new Error("crash probe") }, 0)
  yield* Effect.never
}).pipe(Effect.provide(terminalLayer()), NodeRuntime.runMain({ disablePrettyLogger: true }))
