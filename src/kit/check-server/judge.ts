import { Effect } from "effect"
import { GoldMaxNumPiles, GoldMinNumPiles, GoldTotal, MaxNameLength } from "../../core/constants.js"
import type { Topic } from "../conformance/lint.js"
import { escaped } from "../conformance/lint.js"
import { awkwardName } from "./join.js"
import { differences } from "./sight-judge.js"
import { Spec } from "../conformance/requirements.js"
import type { Step, StepContext } from "./step.js"

/** Checks judged at the end, from everything the checker's clients were sent. */

/** Each kind of flag once (with how often it came), the first datagram that raised it as what came. */
const reportFlags = (context: StepContext, topics: ReadonlyArray<Topic>) => {
  const seen = new Map<string, { count: number; first: (typeof context.session.flags)[number] }>()
  for (const each of context.session.flags) {
    if (!topics.includes(each.flag.topic)) continue
    const kind = each.flag.reason.replace(/\d+/g, "N")
    const entry = seen.get(kind)
    if (entry) entry.count++
    else seen.set(kind, { count: 1, first: each })
  }
  for (const { count, first } of seen.values()) {
    context.fail({
      what: `${first.flag.reason}${count > 1 ? ` (and ${count - 1} more like it)` : ""}, sent to ${first.client}`,
      got: first.datagram,
      spec: first.flag.spec
    })
  }
}

const judged = (name: string, check: string, needs: ReadonlyArray<string>, judge: (context: StepContext) => void): Step => ({
  name,
  check,
  needs,
  run: (context) => Effect.sync(() => judge(context))
})

const displayFraming = judged("display-framing", "display-framing", ["join-spectator", "join-player", "move-keys"], (context) => {
  const displays = context.session.clients.length
  if (!context.session.clients.some((client) => client.report.grid)) {
    context.fail({ what: "no client was ever sent a GRID", spec: Spec.grid })
  }
  reportFlags(context, ["framing"])
  context.note(`DISPLAYs of ${displays} clients held against their GRID`)
})

const messageForm = judged("message-form", "message-form", ["join-spectator", "join-player", "move-keys"], (context) => {
  if (context.session.received === 0) context.fail({ what: "not judged: the server sent nothing", spec: Spec.oneMessage })
  reportFlags(context, ["message", "summary"])
})

const goldTotals = judged("gold-totals", "gold-totals", ["join-spectator", "join-player", "gold-to-all", "game-over"], (context) => {
  const { session } = context
  if (session.firstRemaining === undefined) context.fail({ what: "no client was ever sent a GOLD", spec: Spec.gold })
  if (session.firstRemaining !== undefined && session.firstRemaining !== GoldTotal) {
    context.fail({
      what: `the first GOLD said ${session.firstRemaining} nuggets are left, not ${GoldTotal} (was the server fresh?)`,
      got: `GOLD 0 0 ${session.firstRemaining}`,
      spec: Spec.goldTotal
    })
  }
  reportFlags(context, ["gold"])
})

const pileCount = judged("pile-count", "pile-count", ["join-spectator"], (context) => {
  const view = context.session.firstSpectatorView
  if (!view) return context.fail({ what: "the spectator never saw the map", spec: Spec.spectatorView })
  const piles = view.join("").split("*").length - 1
  if (piles < GoldMinNumPiles || piles > GoldMaxNumPiles) {
    context.fail({
      what: `the spectator's first view shows ${piles} piles of gold, not ${GoldMinNumPiles} to ${GoldMaxNumPiles}`,
      got: `${view.length} rows: ${escaped(view.join("\n"), 80)}`,
      spec: Spec.pileCount
    })
  } else {
    context.note(`${piles} piles`)
  }
})

const spectatorView = judged("spectator-view", "spectator-view", ["join-spectator", "join-player", "move-keys"], (context) => {
  const judge = context.session.options.judge
  if (!judge) return
  const { checked, examples } = judge.spectatorVerdict()
  if (checked === 0) context.fail({ what: "no spectator DISPLAY of the map's size came", spec: Spec.spectatorView })
  for (const example of examples) context.fail({ what: example, spec: Spec.spectatorSeesAll })
  context.note(`${checked} spectator views held against the map`)
})

const visibility = judged("visibility", "visibility", ["join-spectator", "join-player", "move-keys", "gold-to-all", "swap", "game-over"], (context) => {
  const { session } = context
  const judge = session.options.judge
  if (!judge) return
  judge.finish()
  const rule = session.dialect === "cs50-2021" ? "roomSpotsOnly" : "spec"
  const verdict = judge.verdict(rule)
  const other = judge.verdict(rule === "spec" ? "roomSpotsOnly" : "spec")
  const ruleText = rule === "spec" ? "the spec's rule" : "the 2021 rule (sight through room spots only)"
  context.note(`${verdict.judged} player views held against ${ruleText}${verdict.unpaired > 0 ? `; ${verdict.unpaired} could not be paired with a spectator view` : ""}`)
  if (verdict.mismatches > 0) {
    context.note(`by the ${rule === "spec" ? "2021 rule (sight through room spots only)" : "spec's rule"}, ${other.mismatches} of ${other.judged} would differ`)
  }
  if (verdict.judged === 0) context.fail({ what: "no player's view could be judged", spec: Spec.visibility })
  if (verdict.mismatches > 0) {
    for (const example of verdict.examples) {
      context.fail({
        what: `player ${example.letter} at row ${example.at.row} col ${example.at.col} is shown what the rule does not give: ${differences(example.expected, example.got).join("; ")}` +
          ` (${verdict.mismatches} of ${verdict.judged} views differ)`,
        got: escaped(example.got.join("\n"), 60),
        spec: Spec.visibility
      })
    }
  }
})

const names = judged("names-judge", "names", ["names-join", "game-over"], (context) => {
  const { session } = context
  const named = session.clients.find((client) => client.name === awkwardName)
  const letter = named?.report.letter
  if (!letter) return
  if (session.standings === undefined) return context.fail({ what: "not judged: no game-over summary came", spec: Spec.summaryLines })
  const line = session.standings.find((each) => each.letter === letter)
  if (!line) return context.fail({ what: `the summary has no line for ${letter}, the player with the long name`, spec: Spec.summaryLines })
  const before = context.failures()
  if (line.name.length > MaxNameLength) {
    context.fail({ what: `the name came back ${line.name.length} characters long, more than ${MaxNameLength}`, sent: `PLAY ${escaped(awkwardName)}`, got: escaped(line.name), spec: Spec.maxNameLength })
  }
  if (!/^[\x20-\x7e]*$/.test(line.name)) {
    context.fail({ what: "the name in the summary holds a character that cannot be printed", sent: `PLAY ${escaped(awkwardName)}`, got: escaped(line.name), spec: Spec.gameOverMessage })
  }
  // Each character that cannot be printed replaced, or left out; then cut.
  const replaced = line.name.length === MaxNameLength && [...line.name].every((char, i) => char === awkwardName[i] || !/[\x20-\x7e]/.test(awkwardName[i]!))
  const removed = line.name === awkwardName.replace(/[^\x20-\x7e]/g, "").slice(0, MaxNameLength).trimEnd()
  if (!replaced && !removed && context.failures() === before) {
    context.fail({ what: "the name in the summary is not the name given, cut and made printable", sent: `PLAY ${escaped(awkwardName)}`, got: escaped(line.name), spec: Spec.play })
  }
})

export const judgeSteps: ReadonlyArray<Step> = [displayFraming, messageForm, goldTotals, pileCount, spectatorView, visibility, names]
