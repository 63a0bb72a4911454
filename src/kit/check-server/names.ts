import { Effect } from "effect"
import { MaxNameLength } from "../../core/constants.js"
import { Stop, stop } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import type { Client } from "./clients.js"
import type { ServerCheck } from "./server-check.js"

/** A name longer than the spec allows, with a character that cannot be printed in it. */
export const awkwardName = `Bell\x07${"and-a-very-long-name-".repeat(3)}`.slice(0, MaxNameLength + 10)

/**
 * A name comes back only in the game-over summary: the player joins early (`prepare`), and is
 * judged once the game is over.
 */
export const names: ServerCheck<"names", "game-over", Client> = {
  name: "names",
  title: "a name of 60 characters with a control character comes back cut to 50 and printable",
  needs: ["game-over"],
  judgesGathered: true,
  prepare: (context) =>
    context.clients.joinPlayer(awkwardName).pipe(
      Effect.catchIf((error): error is Stop => error instanceof Stop, (error) =>
        stop({
          ...error.failure,
          what: `a player whose name is ${awkwardName.length} characters, one of them a control character, was not let in`,
          spec: Requirements.play
        }))
    ),
  run: (context) =>
    Effect.gen(function*() {
      const letter = context.prepared?.report.letter
      if (!letter) return
      const standings = yield* context.need("game-over").pipe(Effect.orElseSucceed(() => undefined))
      if (standings === undefined) return context.fail({ what: "not judged: no game-over summary came", spec: Requirements.summaryLines })
      const line = standings.find((each) => each.letter === letter)
      if (!line) return context.fail({ what: `the summary has no line for ${letter}, the player with the long name`, spec: Requirements.summaryLines })
      const before = context.failures()
      if (line.name.length > MaxNameLength) {
        context.fail({
          what: `the name came back ${line.name.length} characters long, more than ${MaxNameLength}`,
          sent: `PLAY ${escaped(awkwardName)}`,
          got: escaped(line.name),
          spec: Requirements.maxNameLength
        })
      }
      if (!/^[\x20-\x7e]*$/.test(line.name)) {
        context.fail({
          what: "the name in the summary holds a character that cannot be printed",
          sent: `PLAY ${escaped(awkwardName)}`,
          got: escaped(line.name),
          spec: Requirements.gameOverMessage
        })
      }
      // Each character that cannot be printed replaced, or left out; then cut.
      const replaced = line.name.length === MaxNameLength && [...line.name].every((char, i) => char === awkwardName[i] || !/[\x20-\x7e]/.test(awkwardName[i] ?? ""))
      const removed = line.name === awkwardName.replace(/[^\x20-\x7e]/g, "").slice(0, MaxNameLength).trimEnd()
      if (!replaced && !removed && context.failures() === before) {
        context.fail({
          what: "the name in the summary is not the name given, cut and made printable",
          sent: `PLAY ${escaped(awkwardName)}`,
          got: escaped(line.name),
          spec: Requirements.play
        })
      }
    })
}
