import { Effect } from "effect"
import { MaxNameLength } from "../../core/constants.js"
import type { Standing } from "../../protocol/summary.js"
import { notRun, Stop, stop } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import type { Client } from "./client.js"
import type { ServerCheck, ServerRecorder } from "./server-check.js"

/** A name longer than the spec allows, with a character that cannot be printed in it. */
export const awkwardName = `Bell\x07${"and-a-very-long-name-".repeat(3)}`.slice(0, MaxNameLength + 10)

/** The name join-player plays with: two words, both its name. */
export const spacedName = "nuggets check"

const printable = (char: string) => /[\x20-\x7e]/.test(char)

/** How nameDefect begins for a name that came back whole, longer than MaxNameLength. */
const notCut = "it was not cut"

/** How `shown` differs from `given` (cut to 50 and made printable, by replacing or leaving out), or undefined if it does not. */
const nameDefect = (given: string, shown: string): string | undefined => {
  const removed = given.replace(/[^\x20-\x7e]/g, "").slice(0, MaxNameLength).trimEnd()
  const cut = given.slice(0, MaxNameLength)
  const replaced = shown.length === cut.length && [...shown].every((char, i) => char === cut[i] || !printable(cut[i] ?? ""))
  if (shown === removed || replaced) return undefined
  const expected = replacedOrRemoved(cut, shown)
  const whole = replacedOrRemoved(given, shown)
  if (shown.length > MaxNameLength && whole.startsWith(shown)) return `${notCut}: it came back ${shown.length} characters long, more than ${MaxNameLength}`
  if (shown.length > MaxNameLength && shown.startsWith(expected)) {
    return `it came back ${shown.length} characters long: the ${expected.length} it should be, then ${escaped(shown.slice(expected.length), 30)}: bytes past the name's end (the name was not ended)`
  }
  if (shown.length > MaxNameLength) return `it came back ${shown.length} characters long, more than ${MaxNameLength}`
  if (given.includes(" ") && shown === given.slice(0, given.indexOf(" "))) return `it was cut at its first space: ${escaped(given)} came back as ${escaped(shown)} (everything after PLAY and one space is the name)`
  if (expected.length > 1 && shown === expected.slice(0, -1)) return `it lost its last character: ${escaped(expected)} came back as ${escaped(shown)}`
  return `it is not the name given, cut to ${MaxNameLength} and made printable: ${escaped(given)} came back as ${escaped(shown)}`
}

/** The cut name as `shown` treats its unprintable characters: replaced or kept where it is as long, else left out. */
const replacedOrRemoved = (cut: string, shown: string) =>
  [...cut].map((char, i) => (printable(char) ? char : shown.length >= cut.length ? shown[i] ?? "" : "")).join("")

/** Holds the summary's line for `client` against the name it joined with. */
const judgeName = (context: ServerRecorder, client: Client, standings: ReadonlyArray<Standing>) => {
  const line = standings.find((each) => each.letter === client.report.letter)
  if (!line) return false
  const sent = `PLAY ${escaped(client.name)}`
  const defect = nameDefect(client.name, line.name)
  // Bytes past a name not ended are that defect's, not the name's.
  const own = defect?.includes("past the name's end") ? line.name.slice(0, MaxNameLength) : line.name
  if (!/^[\x20-\x7e]*$/.test(own)) {
    context.fail({ what: "the name in the summary holds a character that cannot be printed", sent, got: escaped(line.name), spec: Requirements.gameOverMessage })
  }
  if (defect === undefined) return true
  const finding = { what: `the name of player ${line.letter}: ${defect}`, sent, got: escaped(line.name) }
  // The 2019 spec leaves the cut to the player (lines 83 and 338); only the 2021 dialect's server cuts.
  if (defect.startsWith(notCut) && context.traffic.dialect !== "2021") {
    context.warn({ ...finding, what: `${finding.what} (the 2019 spec has the player cut it, not the server)`, spec: Requirements.nameLength })
  } else {
    context.fail({ ...finding, spec: line.name.length > MaxNameLength ? Requirements.maxNameLength : Requirements.play })
  }
  return true
}

/**
 * A name comes back only in the game-over summary: the player with the awkward name joins
 * early (`prepare`), and is judged once the game is over, with the player join-player let in
 * (whose name has a space).
 */
export const names: ServerCheck<"names", "game-over" | "join-player", Client> = {
  name: "names",
  title: "names come back whole in the summary: a name with a space, and one of 60 characters with a control character cut to 50 and printable",
  needs: ["game-over", "join-player"],
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
      const awkward = context.prepared
      const over = yield* context.need("game-over")
      if (over === undefined) return yield* notRun("no game-over summary came (see game-over)")
      const { standings } = over
      // After a crash, or with game-over played afresh, the game played to its end is another server's: its summary does not list these players.
      const ours = (client: Client | undefined) => client !== undefined && over.clients.all.includes(client)
      if (!ours(awkward)) return yield* notRun("its player joined an earlier server than the one whose game game-over played to its end (started afresh after a crash, or for game-over)")
      if (!judgeName(context, awkward!, standings)) return yield* notRun("the summary has no line for its player (see game-over)")
      const first = yield* context.need("join-player")
      if (ours(first) && first.name === spacedName) judgeName(context, first, standings)
    })
}
