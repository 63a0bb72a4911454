import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { mapProblems } from "../core/map.js"
import { CliError } from "./error.js"
import { parseServableMap, readMapText } from "./shared.js"

/** Checks a map against every rule of the spec and prints each broken one; exit 0 if none. */
const checkMap = (path: string) =>
  Effect.gen(function*() {
    const text = yield* readMapText(path)
    const map = yield* parseServableMap(text, path)
    const problems = mapProblems(map)
    if (problems.length === 0) {
      yield* Console.log(`${path}: OK, ${map.rows}x${map.cols} with ${map.roomSpots.length} room spots`)
      return
    }
    for (const problem of problems) yield* Console.log(`${path}: ${problem.message}`)
    return yield* new CliError({ message: `${path}: ${problems.length} broken rule${problems.length === 1 ? "" : "s"}` })
  })

const check = Command.make(
  "check",
  { file: Args.text({ name: "FILE" }).pipe(Args.withDescription("The map file to check.")) },
  ({ file }) => checkMap(file)
).pipe(
  Command.withDescription(
    "Check a map file: its characters and size, enough room spots, rooms closed, passages " +
      "meeting walls (not corners), one connected map. Prints every problem with its line and column."
  )
)

export const mapCommand = Command.make("map").pipe(
  Command.withDescription("Tools for map files."),
  Command.withSubcommands([check])
)
