import { Effect } from "effect"
import type { SightRule } from "../../core/visibility.js"
import { expectedPlayerGrid } from "../../protocol/display.js"
import type { Position } from "../../protocol/reader.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import type { Client } from "./clients.js"
import { firstPlayer, somePlayer } from "./join.js"
import type { ServerCheck, ServerRecorder } from "./server-check.js"
import { differingCells, neighbourhood } from "./sight-causes.js"
import { placed, pressMove, stepToward } from "./walking.js"

/**
 * No stale view: a server need not send a DISPLAY to a player whose view did not change,
 * but must to one whose view did. One player walks away from another that stands still,
 * and back up to it; after each key, once the server is quiet, every player's last DISPLAY is held
 * against what the visibility rule gives for the game as it stands now (by either rule:
 * which one is visibility's to judge). A view that differs now, but was right when it came,
 * is stale: a DISPLAY the server owed never came. A view that was wrong when it came is
 * visibility's finding, not this one's.
 */

const rules: ReadonlyArray<SightRule> = ["allSpots", "roomSpotsOnly"]

/** Quiet this long after a key, the server has sent all that key made it send. */
const quietMs = 80

/** Keys the walker presses each way at most. */
const maxSteps = 16

/** How far (in rows and columns) the walker goes from the one who stands still before it comes back. */
const awayDistance = 12

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
      const distance = (at: Position) => Math.abs(at.row - watcherAt.row) + Math.abs(at.col - watcherAt.col)
      let judged = 0
      let keys = 0
      // Out of the sight of the one who stands still, and back up to it.
      for (const goal of [(at: Position) => distance(at) >= awayDistance, (at: Position) => nextTo(at, watcherAt)]) {
        for (let step = 0; step < maxSteps && !clients.gameEnded; step++) {
          const from = yield* placed(context, mover)
          if (goal(from)) break
          const key = stepToward(clients.view ?? [], from, (_char, at) => goal(at))
          if (key === undefined) break
          const views = yield* stepAndJudge(context, mover, key, stale)
          if (views === undefined) break
          judged += views
          keys++
        }
      }
      context.note(`${judged} player views held against the game as it stood, after ${keys} keys`)
    })
}
