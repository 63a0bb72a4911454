import { Console, Effect } from "effect"
import { mapProblems } from "../core/map.js"
import { command, group, textArg } from "./command.js"
import { CliError } from "./error.js"
import { parseServableMap, readMapText } from "./maps.js"

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
    // Every rule a parsed map can break still lets a game be played on it.
    const count = `${problems.length} broken rule${problems.length === 1 ? "" : "s"}`
    return yield* new CliError({ message: `${path} — ${count}; nuggets serve still plays it` })
  })

export const mapNode = group("map", "Tools for map files.", [
  command(
    "check",
    {
      summary: "Check a map file against every rule of the spec: its characters and size, enough room spots, " +
        "rooms closed, passages meeting walls (not corners), one connected map. Prints each problem with its line " +
        "and column, and exits 1 if there is any; the server still plays a map whose only problems are these.",
      args: { file: textArg("FILE", "the map file to check") }
    },
    ({ file }) => checkMap(file)
  )
])
