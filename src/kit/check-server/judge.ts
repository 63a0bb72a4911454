import { Effect } from "effect"
import { GoldMaxNumPiles, GoldMinNumPiles, GoldTotal } from "../../core/constants.js"
import type { SightRule } from "../../core/visibility.js"
import { quitText } from "../../protocol/dialect.js"
import { notRun } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import type { Topic } from "../conformance/lint.js"
import { Requirements } from "../conformance/requirements.js"
import type { ServerCheck, ServerRecorder } from "./server-check.js"
import { differingCells, likelyCause, neighbourhood } from "./sight-causes.js"
import { awkwardName } from "./names.js"
import type { FlagSeen } from "./traffic.js"

/** Checks judged at the end, from everything the checker's clients were sent. */

/** Each kind of flag once (with how often it came), the first datagram that raised it as what came; as a failure, or a warning. */
export const reportFlags = (
  context: ServerRecorder,
  topics: ReadonlyArray<Topic>,
  warnIf: (seen: FlagSeen) => boolean = () => false,
  keep: (seen: FlagSeen) => boolean = () => true
) => {
  const seen = new Map<string, { count: number; first: FlagSeen }>()
  for (const each of context.traffic.flags) {
    // What came while the server was dying of what that step sent, or to a player let in beyond the limit, is those findings'.
    if (!topics.includes(each.flag.topic) || !keep(each) || context.traffic.explained(each)) continue
    const kind = each.flag.reason.replace(/\d+/g, "N")
    const entry = seen.get(kind)
    if (entry) entry.count++
    else seen.set(kind, { count: 1, first: each })
  }
  for (const { count, first } of seen.values()) {
    const finding = {
      what: `${first.flag.reason}${count > 1 ? ` (and ${count - 1} more like it)` : ""}, sent to ${first.client}${first.game > 1 ? ` (server ${first.game})` : ""}`,
      got: first.datagram,
      spec: first.flag.spec
    }
    if (warnIf(first)) context.warn(finding)
    else context.fail(finding)
  }
}

export const displayFraming: ServerCheck<"display-framing", "join-spectator" | "join-player" | "move-keys"> = {
  name: "display-framing",
  title: "every DISPLAY has GRID's rows and columns (the map's, with --map), each row ended by a newline, in map and occupant characters",
  needs: ["join-spectator", "join-player", "move-keys"],
  judgesGathered: true,
  run: (context) =>
    Effect.sync(() => {
      const all = context.games.flatMap((game) => game.all)
      const said = all.find((client) => client.report.gridSaid !== undefined)?.report.gridSaid
      if (said === undefined) context.fail({ what: "no client was ever sent a GRID", spec: Requirements.grid })
      const map = context.map
      // GRID written the other way round is reported with each DISPLAY it disagrees with, once.
      const transposed = said?.rows === map?.cols && said?.cols === map?.rows
      if (map && said && (said.rows !== map.rows || said.cols !== map.cols) && !transposed) {
        const display = all.flatMap((client) => client.welcome).find((each) => each.message?._tag === "Display")
        const rows = display?.message?._tag === "Display" ? display.message.grid.split("\n").filter((row, index, all) => row !== "" || (index > 0 && index < all.length - 1)) : []
        const views = rows.length > 0 ? ` (its DISPLAYs are ${rows.length}x${rows[0]?.length ?? 0})` : ""
        context.fail({ what: `GRID says ${said.rows}x${said.cols}, but the map the server was started with (--map) is ${map.rows}x${map.cols}${views}`, spec: Requirements.grid })
      }
      reportFlags(context, ["framing"])
      context.note(`DISPLAYs of ${all.length} clients held against their GRID`)
    })
}

/** Whether the summary is printable but for the line of the player with the awkward name (`Bell\x07...`), which names judges. */
const explainedByNames = (text: string) =>
  text.split("\n").filter((line) => !line.includes(awkwardName.slice(0, 4))).every((line) => /^[\x20-\x7e\t\r]*$/.test(line))

/** QUIT's usual texts, ours and the CS50 servers': a server that loses its last character shows itself on two of them. */
const usualQuits = [...Object.values(quitText), "Game is full: no more players can join.", "Thanks for watching!"]

export const messageForm: ServerCheck<"message-form", "join-spectator" | "join-player" | "move-keys" | "spectator-replacement" | "quit"> = {
  name: "message-form",
  title: "every message is ASCII, of a known type, and well formed",
  needs: ["join-spectator", "join-player", "move-keys", "spectator-replacement", "quit"],
  judgesGathered: true,
  run: (context) =>
    Effect.sync(() => {
      if (context.traffic.received === 0) context.fail({ what: "not judged: the server sent nothing", spec: Requirements.oneMessage })
      reportFlags(context, ["message"])
      // A summary unprintable only by the awkward name's control character is the names check's finding.
      reportFlags(context, ["summary"], () => false, (seen) => !explainedByNames(seen.raw))
      // One cut text could be a choice of words; two are a message cut short.
      const cut = [...context.traffic.quitTexts].filter((text) => usualQuits.some((usual) => usual.slice(0, -1) === text))
      if (cut.length >= 2) {
        context.fail({
          what: `QUIT texts lose their last character: ${cut.map((text) => escaped(text)).join(", ")} (the usual texts end ${cut.map((text) => escaped(usualQuits.find((usual) => usual.slice(0, -1) === text)!.slice(-1))).join(", ")})`,
          got: cut.map((text) => escaped(`QUIT ${text}`)).join(", "),
          spec: Requirements.quit
        })
      }
    })
}

export const goldTotals: ServerCheck<"gold-totals", "join-spectator" | "join-player" | "gold-to-all" | "game-over"> = {
  name: "gold-totals",
  title: "GOLD adds up: 250 nuggets at first, each purse grows by what was collected, nuggets left never grow, the spectator's n and p are 0",
  needs: ["join-spectator", "join-player", "gold-to-all", "game-over"],
  judgesGathered: true,
  run: (context) =>
    Effect.sync(() => {
      const firsts = [...context.traffic.firstRemaining.values()]
      if (firsts.length === 0) context.fail({ what: "no client was ever sent a GOLD", spec: Requirements.gold })
      const wrong = firsts.filter((first) => first !== GoldTotal)
      if (wrong.length > 0) {
        const servers = firsts.length > 1 ? ` (on ${wrong.length} of the ${firsts.length} servers started)` : ""
        context.fail({ what: `the game began with ${wrong[0]} nuggets (by the first GOLD), not ${GoldTotal}${servers}`, spec: Requirements.goldTotal })
      }
      // Nuggets left that rise by no more than players who quit had: their purses put back on the map, a rule of the server's own.
      const quitPurses = context.games.map((game) => game.all.filter((client) => client.role === "player" && client.left).reduce((sum, client) => sum + client.report.purse, 0))
      const putBack = (seen: FlagSeen) => {
        const rose = /^nuggets left rose from (\d+) to (\d+)/.exec(seen.flag.reason)
        return rose !== null && Number(rose[2]) - Number(rose[1]) <= (quitPurses[seen.game - 1] ?? 0)
      }
      reportFlags(context, ["gold"], putBack)
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
      const view = (yield* context.need("join-spectator")).firstView
      if (!view) return yield* notRun("the spectator was sent no DISPLAY it could read (see join-spectator)")
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
    Effect.gen(function*() {
      const judge = context.judge
      if (!judge) return
      const { checked, examples } = judge.spectatorTally()
      if (checked === 0) return yield* notRun(`no spectator DISPLAY could be read as the map's size${judge.misfits > 0 ? " (see display-framing)" : ""}`)
      for (const example of examples) context.fail({ what: example, spec: Requirements.spectatorSeesAll })
      context.note(`${checked} spectator views held against the map`)
    })
}

const ruleWords: Readonly<Record<SightRule, string>> = {
  allSpots: "the spec's rule (sight through room and passage spots)",
  roomSpotsOnly: "the 2021 rule (sight through room spots only)"
}

export const visibility: ServerCheck<"visibility", "join-spectator" | "join-player" | "move-keys" | "gold-to-all" | "swap" | "game-over"> = {
  name: "visibility",
  title: "each player's DISPLAY is what the visibility rule gives, from where the spectator sees everyone",
  needs: ["join-spectator", "join-player", "move-keys", "gold-to-all", "swap", "game-over"],
  needsMap: true,
  judgesGathered: true,
  run: (context) =>
    Effect.gen(function*() {
      const { judge, map } = context
      if (!judge || !map) return
      judge.finish()
      const tallies = { allSpots: judge.tally("allSpots"), roomSpotsOnly: judge.tally("roomSpotsOnly") }
      if (tallies.allSpots.judged === 0) return yield* notRun("no player's view could be paired with a spectator view of the map's size")
      // The rule its views follow: the one fewer of them differ from.
      const wrong = (rule: SightRule) => tallies[rule].mismatches + tallies[rule].echoes
      const follows: SightRule = wrong("roomSpotsOnly") < wrong("allSpots") ? "roomSpotsOnly" : "allSpots"
      const dialect = context.traffic.dialect
      const held: SightRule = dialect === "2021" ? "roomSpotsOnly" : dialect === "2019" ? "allSpots" : follows
      const tally = tallies[held]
      const share = (rule: SightRule) => `${tallies[rule].judged - tallies[rule].mismatches - tallies[rule].echoes} of ${tallies[rule].judged}`
      const other: SightRule = follows === "allSpots" ? "roomSpotsOnly" : "allSpots"
      context.note(`${tally.judged} player views held against ${ruleWords[held]}${dialect === undefined ? " (the dialect is not known: the rule its views follow)" : ", the dialect's"}`)
      context.note(`its views follow ${ruleWords[follows]}: ${share(follows)} agree (by the other rule, ${share(other)})`)
      const cause = likelyCause(map, held, tally.samples)
      for (const [index, example] of tally.examples.entries()) {
        const cells = differingCells(example.expected, example.got)
        context.fail({
          what: `player ${example.letter} at row ${example.at.row} col ${example.at.col} is shown what the rule does not give, at ${cells.length} gridpoint${cells.length === 1 ? "" : "s"}` +
            ` (${tally.mismatches} of ${tally.judged} views differ, at ${tally.cells.size} gridpoint${tally.cells.size === 1 ? "" : "s"} in all` +
            `${tally.echoes > 0 ? `; ${tally.echoes} more differ only where the same player was shown wrong before` : ""})` +
            (index === 0 && cause ? `; likely cause: ${cause}` : ""),
          detail: neighbourhood(example.expected, example.got, example.at, cells),
          spec: Requirements.visibility
        })
      }
    })
}
