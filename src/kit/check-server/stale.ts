import { Effect } from "effect"
import type { SightRule } from "../../core/visibility.js"
import { expectedPlayerGrid } from "../../protocol/display.js"
import type { Position } from "../../protocol/reader.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import type { Client } from "./client.js"
import { firstPlayer, somePlayer } from "./join.js"
import type { ServerCheck, ServerRecorder } from "./server-check.js"
import { differingCells, neighbourhood } from "./sight-causes.js"
import { placed, pressMove, stepToward } from "./walking.js"

/**
 * No stale view: a server need not send a DISPLAY to a player whose view did not change,
 * but must to one whose view did. One player walks into the sight of another that stands
 * still, up to it, and out of its sight again; after each of those keys, once the server is quiet, every player's last DISPLAY is held
 * against what the visibility rule gives for the game as it stands now (by either rule:
 * which one is visibility's to judge). A view that differs now, but was right when it came,
 * is stale: a DISPLAY the server owed never came. A view that was wrong when it came is
 * visibility's finding, not this one's.
 */

const rules: ReadonlyArray<SightRule> = ["allSpots", "roomSpotsOnly"]

/** Quiet this long after a key, the server has sent all that key made it send. */
const quietMs = 60

/** Keys the walker presses, and each judged, into its sight and out, each way at most. */
const maxSteps = 8

/** Keys the walker may press to come within the sight of the one who stands still, judging nothing. */
const approachSteps = 60

const sameRows = (a: ReadonlyArray<string> | undefined, b: ReadonlyArray<string> | undefined) =>
  a !== undefined && b !== undefined && a.length === b.length && a.every((row, index) => row === b[index])

const nextTo = (a: Position, b: Position) => Math.abs(a.row - b.row) <= 1 && Math.abs(a.col - b.col) <= 1

/** Holds every player's last view against the game as the spectator shows it now; the players found stale. */
const judgeViews = (context: ServerRecorder, stale: Set<string>, after: string): number => {
  const { clients, judge, map } = context
  const now = clients.view === undefined ? undefined : judge?.fit(clients.view)
  if (!judge || !map || now === undefined) return 0
  let judged = 0
  for (const player of clients.activePlayers) {
    const letter = player.report.letter!
    const last = player.report.view === undefined ? undefined : judge.fit(player.report.view)
    if (last === undefined || player.report.position === undefined || stale.has(letter)) continue
    judged++
    const expectedNow = rules.map((rule) => expectedPlayerGrid(map, judge.sight(rule), now, letter, last))
    if (expectedNow.some((expected) => sameRows(expected, last))) continue
    const then = [player.spectatorThen, player.spectatorAfter].flatMap((view) => (view === undefined ? [] : [judge.fit(view) ?? []]))
    const rightThen = rules.findIndex((rule) => then.some((scene) => sameRows(expectedPlayerGrid(map, judge.sight(rule), scene, letter, last), last)))
    const expected = expectedNow[rightThen]
    if (rightThen === -1 || expected === undefined) continue
    stale.add(letter)
    const cells = differingCells(expected, last)
    context.fail({
      what: `player ${letter}'s last DISPLAY no longer shows the game as it stands: it was right when it came, but after ${after} ${cells.length} gridpoints in its view changed, and the DISPLAY the server owed it never came`,
      got: `its last DISPLAY, row ${cells[0]?.row}: ${escaped(last[cells[0]?.row ?? 0] ?? "", 80)}`,
      detail: neighbourhood(expected, last, player.report.position, cells).map((line) => line.replace("the rule gives", "it should show ").replace("it was shown", "it shows")),
      spec: Requirements.updateAll
    })
  }
  return judged
}

/** Presses `key` for `mover`, waits for the server to fall quiet, and judges every view. */
const stepAndJudge = (context: ServerRecorder, mover: Client, key: string, stale: Set<string>) =>
  Effect.gen(function*() {
    if (!(yield* pressMove(context, mover, key))) return undefined
    yield* context.clients.quiet(quietMs, context.answerMs)
    return judgeViews(context, stale, `KEY ${key} from ${mover.who}`)
  })

export const noStaleView: ServerCheck<"no-stale-view", "join-spectator" | "join-player"> = {
  name: "no-stale-view",
  title: "once the server is quiet after a key, every player's last DISPLAY shows the game as it stands: no DISPLAY it owed is skipped",
  needs: ["join-spectator", "join-player"],
  needsMap: true,
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      const mover = yield* firstPlayer(context)
      const watcher = yield* somePlayer(context, 1)
      yield* clients.watch()
      const stale = new Set<string>()
      const watcherAt = yield* placed(context, watcher)
      const judge = context.judge
      const inSight = (at: Position) =>
        judge !== undefined && rules.some((rule) => judge.sight(rule).isVisible(watcherAt.row * judge.map.cols + watcherAt.col, at.row * judge.map.cols + at.col))
      let judged = 0
      let keys = 0
      const walk = (goal: (at: Position) => boolean, steps: number, judging: boolean) =>
        Effect.gen(function*() {
          for (let step = 0; step < steps && !clients.gameEnded; step++) {
            const from = yield* placed(context, mover)
            if (goal(from)) return
            const key = stepToward(clients.view ?? [], from, (_char, at) => goal(at))
            if (key === undefined) return
            if (!judging) {
              if (!(yield* pressMove(context, mover, key))) return
              continue
            }
            const views = yield* stepAndJudge(context, mover, key, stale)
            if (views === undefined) return
            judged += views
            keys++
          }
        })
      // Up to where the one who stands still sees it; into its sight and up to it; then out of its sight again.
      yield* walk((at) => inSight(at) && !nextTo(at, watcherAt), approachSteps, false)
      yield* walk((at) => nextTo(at, watcherAt), maxSteps, true)
      yield* walk((at) => !inSight(at) && Math.abs(at.row - watcherAt.row) + Math.abs(at.col - watcherAt.col) > 2, maxSteps, true)
      context.note(`${judged} player views held against the game as it stood, after ${keys} keys`)
    })
}
