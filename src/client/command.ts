import { Args, Command } from "@effect/cli"
import { Effect } from "effect"

// Placeholder until the terminal client lands.
export const joinCommand = Command.make(
  "join",
  { host: Args.text({ name: "host" }), port: Args.integer({ name: "port" }), name: Args.text({ name: "playername" }).pipe(Args.optional) },
  () => Effect.dieMessage("not yet")
)
