import { Effect } from "effect"
import { GoldMaxNumPiles, GoldMinNumPiles, GoldTotal } from "../../core/constants.js"
import { escaped } from "../conformance/escaping.js"
import type { Topic } from "../conformance/lint.js"
import { Requirements } from "../conformance/requirements.js"
import type { ServerCheck, ServerRecorder } from "./server-check.js"
import { differences } from "./sight-judge.js"
import type { FlagSeen } from "./traffic.js"

/** Checks judged at the end, from everything the checker's clients were sent. */

/** Each kind of flag once (with how often it came), the first datagram that raised it as what came. */
const reportFlags = (context: ServerRecorder, topics: ReadonlyArray<Topic>) => {
  const seen = new Map<string, { count: number; first: FlagSeen }>()
  for (const each of context.traffic.flags) {
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

export const displayFraming: ServerCheck<"display-framing", "join-spectator" | "join-player" | "move-keys"> = {
  name: "display-framing",
  title: "every DISPLAY has GRID's rows and columns, each row ended by a newline, in map and occupant characters",
  needs: ["join-spectator", "join-player", "move-keys"],
  judgesGathered: true,
  run: (context) =>
    Effect.sync(() => {
      const { all } = context.clients
      if (!all.some((client) => client.report.grid)) context.fail({ what: "no client was ever sent a GRID", spec: Requirements.grid })
      reportFlags(context, ["framing"])
      context.note(`DISPLAYs of ${all.length} clients held against their GRID`)
    })
}

export const messageForm: ServerCheck<"message-form", "join-spectator" | "join-player" | "move-keys"> = {
  name: "message-form",
  title: "every message is ASCII, of a known type, and well formed",
  needs: ["join-spectator", "join-player", "move-keys"],
  judgesGathered: true,
  run: (context) =>
    Effect.sync(() => {
      if (context.traffic.received === 0) context.fail({ what: "not judged: the server sent nothing", spec: Requirements.oneMessage })
      reportFlags(context, ["message", "summary"])
    })
}

export const goldTotals: ServerCheck<"gold-totals", "join-spectator" | "join-player" | "gold-to-all" | "game-over"> = {
  name: "gold-totals",
  title: "GOLD adds up: 250 nuggets at first, each purse grows by what was collected, nuggets left never grow",
  needs: ["join-spectator", "join-player", "gold-to-all", "game-over"],
  judgesGathered: true,
  run: (context) =>
    Effect.sync(() => {
      const first = context.traffic.firstRemaining
      if (first === undefined) context.fail({ what: "no client was ever sent a GOLD", spec: Requirements.gold })
      if (first !== undefined && first !== GoldTotal) {
        context.fail({ what: `the first GOLD said ${first} nuggets are left, not ${GoldTotal} (was the server fresh?)`, got: `GOLD 0 0 ${first}`, spec: Requirements.goldTotal })
      }
      reportFlags(context, ["gold"])
    })
}

export const pileCount: ServerCheck<"pile-count", "join-spectator"> = {
  name: "pile-count",
  title: "10 to 30 piles of gold at the start",
  needs: ["join-spectator"],
  judgesGathered: true,
  run: (context) =>
    Effect.gen(function*() {
      // The spectator's first view of the game, before anyone moved: where the piles were dropped.
      const spectator = yield* Effect.option(context.need("join-spectator"))
      const view = spectator._tag === "Some" ? spectator.value.firstView : undefined
      if (!view) return context.fail({ what: "the spectator never saw the map", spec: Requirements.spectatorView })
      const piles = view.join("").split("*").length - 1
      if (piles < GoldMinNumPiles || piles > GoldMaxNumPiles) {
        context.fail({
          what: `the spectator's first view shows ${piles} piles of gold, not ${GoldMinNumPiles} to ${GoldMaxNumPiles}`,
          got: `${view.length} rows: ${escaped(view.join("\n"), 80)}`,
          spec: Requirements.pileCount
        })
      } else {
        context.note(`${piles} piles`)
      }
    })
}

export const spectatorView: ServerCheck<"spectator-view", "join-spectator" | "join-player" | "move-keys"> = {
  name: "spectator-view",
  title: "the spectator sees the whole map, gold on room spots and players on spots",
  needs: ["join-spectator", "join-player", "move-keys"],
  needsMap: true,
  judgesGathered: true,
  run: (context) =>
    Effect.sync(() => {
      const judge = context.judge
      if (!judge) return
      const { checked, examples } = judge.spectatorTally()
      if (checked === 0) context.fail({ what: "no spectator DISPLAY of the map's size came", spec: Requirements.spectatorView })
      for (const example of examples) context.fail({ what: example, spec: Requirements.spectatorSeesAll })
      context.note(`${checked} spectator views held against the map`)
    })
}

export const visibility: ServerCheck<"visibility", "join-spectator" | "join-player" | "move-keys" | "gold-to-all" | "swap" | "game-over"> = {
  name: "visibility",
  title: "each player's DISPLAY is what the visibility rule gives, from where the spectator sees everyone",
  needs: ["join-spectator", "join-player", "move-keys", "gold-to-all", "swap", "game-over"],
  needsMap: true,
  judgesGathered: true,
  run: (context) =>
    Effect.sync(() => {
      const judge = context.judge
      if (!judge) return
      judge.finish()
      const rule = context.traffic.dialect === "2021" ? "roomSpotsOnly" : "allSpots"
      const tally = judge.tally(rule)
      const other = judge.tally(rule === "allSpots" ? "roomSpotsOnly" : "allSpots")
      const ruleText = rule === "allSpots" ? "the spec's rule" : "the 2021 rule (sight through room spots only)"
      context.note(`${tally.judged} player views held against ${ruleText}${tally.unpaired > 0 ? `; ${tally.unpaired} could not be paired with a spectator view` : ""}`)
      if (tally.mismatches > 0) {
        context.note(`by the ${rule === "allSpots" ? "2021 rule (sight through room spots only)" : "spec's rule"}, ${other.mismatches} of ${other.judged} would differ`)
      }
      if (tally.judged === 0) context.fail({ what: "no player's view could be judged", spec: Requirements.visibility })
      for (const example of tally.examples) {
        context.fail({
          what: `player ${example.letter} at row ${example.at.row} col ${example.at.col} is shown what the rule does not give: ${differences(example.expected, example.got).join("; ")}` +
            ` (${tally.mismatches} of ${tally.judged} views differ)`,
          got: escaped(example.got.join("\n"), 60),
          spec: Requirements.visibility
        })
      }
    })
}
