import { Effect } from "effect"
import { escaped } from "../conformance/lint.js"
import { somePlayer } from "./join.js"
import { stop } from "./session.js"
import { Spec } from "../conformance/requirements.js"
import type { Step, StepContext } from "./step.js"
import { expectedMove, pressMove, same, walkTo, where } from "./walking.js"

/** Playing: every move key and its run, gold that everyone hears of, swapping places, the spectator replaced, quitting. */

const moveKeys: Step = {
  name: "move-keys",
  check: "move-keys",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const player = yield* somePlayer(context)
      for (const key of "hljkyubn") yield* pressMove(context, player, key)
      let blocked = false
      for (const key of "HLJKYUBN") {
        yield* pressMove(context, player, key)
        // Right after a run, one more step the same way is not possible: nothing may move.
        const from = context.session.spectatorSees(player.report.letter!)
        const view = context.session.view
        const lower = key.toLowerCase()
        if (!blocked && from && view && same(expectedMove(view, from, lower).to, from)) {
          blocked = true
          yield* pressMove(context, player, lower)
        }
      }
    })
}

const goldToAll: Step = {
  name: "gold-to-all",
  check: "gold-to-all",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { session } = context
      const collector = yield* somePlayer(context, 0)
      const other = yield* somePlayer(context, 1)
      const spectator = yield* session.watch()
      // The nuggets left as last told to anyone: the count only falls, so the smallest.
      const before = Math.min(...session.clients.flatMap((client) => (client.gold ? [client.gold.r] : [])))
      const purse = collector.report.purse
      yield* walkTo(context, collector, (char) => char === "*", "reach gold")
      const collected = yield* session.until(collector, "GOLD after stepping on gold", () => collector.report.purse > purse, Spec.collects).pipe(
        Effect.as(true),
        Effect.catchAll((error) => Effect.sync(() => (context.fail(error.failure), false)))
      )
      if (!collected) return
      const remaining = collector.report.remaining!
      const gained = collector.report.purse - purse
      if (before - remaining !== gained) {
        context.fail({
          what: `the player gained ${gained} nuggets, but nuggets left went from ${before} to ${remaining}`,
          sent: collector.probe.lastSent(),
          got: collector.probe.recent(2).join(", "),
          spec: Spec.gold
        })
      }
      for (const [client, who] of [[spectator, "the spectator"], [other, `player ${other.report.letter}`]] as const) {
        const told = yield* session.until(client, `GOLD with ${remaining} nuggets left`, () => client.report.remaining === remaining, Spec.goldToAll).pipe(
          Effect.as(true),
          Effect.catchAll(() => Effect.succeed(false))
        )
        if (!told) {
          context.fail({
            what: `player ${collector.report.letter} collected gold, but ${who} was not sent a GOLD saying ${remaining} nuggets are left`,
            sent: collector.probe.lastSent(),
            got: client.probe.recent(3).join(", ") || "nothing",
            spec: Spec.goldToAll
          })
          continue
        }
        const gold = client.gold
        if (gold && client === spectator && (gold.n !== 0 || gold.p !== 0)) {
          context.fail({ what: "the spectator's GOLD must say n=0, p=0", got: `GOLD ${gold.n} ${gold.p} ${gold.r}`, spec: Spec.spectatorGold })
        }
        if (gold && client === other && gold.n !== 0) {
          context.fail({ what: `player ${other.report.letter} collected nothing, but its GOLD says n=${gold.n}`, got: `GOLD ${gold.n} ${gold.p} ${gold.r}`, spec: Spec.gold })
        }
      }
    })
}

const swap: Step = {
  name: "swap",
  check: "swap",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { session } = context
      const mover = yield* somePlayer(context, 0)
      const other = yield* somePlayer(context, 1)
      const letter = other.report.letter!
      const beside = (at: { row: number; col: number }) => {
        const there = session.spectatorSees(letter)
        return there !== undefined && Math.abs(there.row - at.row) <= 1 && Math.abs(there.col - at.col) <= 1 && !same(there, at)
      }
      // Up to the cell next to the other player, then one step onto it.
      yield* session.locate(letter)
      if (!beside(yield* session.locate(mover.report.letter!))) {
        yield* walkTo(context, mover, (_char, at) => beside(at), `come next to player ${letter}`)
      }
      const moverAt = session.spectatorSees(mover.report.letter!)!
      const otherAt = session.spectatorSees(letter)!
      const key = Object.entries({ h: [0, -1], l: [0, 1], j: [1, 0], k: [-1, 0], y: [-1, -1], u: [-1, 1], b: [1, -1], n: [1, 1] })
        .find(([, [dRow, dCol]]) => moverAt.row + dRow! === otherAt.row && moverAt.col + dCol! === otherAt.col)?.[0]
      if (key === undefined) return yield* stop({ what: `player ${mover.report.letter} did not end next to ${letter}`, spec: Spec.swap })
      const moved = yield* pressMove(context, mover, key)
      if (!moved) return
      const swapped = yield* session.until(other, `DISPLAY with @ at ${where(moverAt)}`, () => same(other.report.position, moverAt), Spec.swap).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      if (!swapped || !same(session.spectatorSees(letter), moverAt)) {
        context.fail({
          what: `player ${mover.report.letter} moved onto ${letter} at ${where(otherAt)}; ${letter} should now stand at ${where(moverAt)}, ` +
            `but its DISPLAY shows it at ${where(other.report.position)} and the spectator at ${where(session.spectatorSees(letter))}`,
          sent: escaped(`KEY ${key}`),
          got: other.probe.recent(1).join("") || "nothing",
          spec: Spec.swap
        })
      }
    })
}

const spectatorReplacement: Step = {
  name: "spectator-replacement",
  check: "spectator-replacement",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { session } = context
      const first = yield* session.watch()
      const second = yield* session.open("spectator")
      first.probe.skipAll()
      yield* second.probe.send("SPECTATE")
      const welcomed = yield* second.probe.gather(session.answerMs, () => second.report.view !== undefined)
      if (second.report.view === undefined) {
        return yield* stop({ what: "a second spectator was not let in", sent: escaped("SPECTATE"), got: welcomed.map((each) => escaped(each.text, 40)).join(", ") || "nothing", spec: Spec.replaceSpectator })
      }
      session.spectator = second
      const told = yield* first.probe.next("QUIT", session.answerMs, (arrival) => arrival.kind === "QUIT").pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      first.left = true
      if (!told) {
        context.fail({ what: "the spectator it replaced was not told to QUIT", sent: `${escaped("SPECTATE")} (from another client)`, got: first.probe.recent(2).join(", ") || "nothing", spec: Spec.replaceSpectator })
      }
      // Forgotten: the next move reaches the new spectator, not the old one.
      const player = yield* somePlayer(context)
      first.probe.skipAll()
      const view = session.view!
      const from = session.spectatorSees(player.report.letter!)!
      const key = [..."hljkyubn"].find((each) => !same(expectedMove(view, from, each).to, from))
      if (key === undefined) return
      yield* pressMove(context, player, key)
      const after = yield* first.probe.gather(Math.min(300, session.answerMs))
      const displays = after.filter((each) => each.kind === "DISPLAY")
      if (displays.length > 0) {
        context.fail({
          what: `the replaced spectator still gets DISPLAYs (${displays.length} after a move): the server did not forget it`,
          sent: `${escaped(`KEY ${key}`)} (from player ${player.report.letter})`,
          got: escaped(displays[0]!.text, 40),
          spec: Spec.oneSpectator
        })
      }
    })
}

const quit: Step = {
  name: "quit",
  check: "quit",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { session } = context
      const leaver = yield* session.joinPlayer("leaver")
      const letter = leaver.report.letter!
      yield* session.until(yield* session.watch(), `DISPLAY showing ${letter}`, () => session.spectatorSees(letter) !== undefined, Spec.spectatorView)
      yield* leaver.probe.send("KEY Q")
      leaver.left = true
      yield* leaver.probe.next("QUIT", session.answerMs, (arrival) => arrival.kind === "QUIT").pipe(
        Effect.catchAll(() => Effect.sync(() =>
          context.fail({ what: "a player's Q was not answered with QUIT", sent: escaped("KEY Q"), got: leaver.probe.recent(2).join(", ") || "nothing", spec: Spec.quit })
        ))
      )
      yield* awaitGone(context, letter)
      // Gone for good: its keys move nothing, and its letter never comes back.
      leaver.probe.skipAll()
      yield* leaver.probe.send("KEY l")
      const answers = yield* leaver.probe.gather(Math.min(300, session.answerMs))
      const shown = session.spectatorSees(letter)
      if (shown !== undefined) {
        context.fail({
          what: `player ${letter} quit, but after a key from it the spectator shows ${letter} again, at ${where(shown)}`,
          sent: escaped("KEY l"),
          got: `DISPLAY row ${shown.row}: ${escaped(session.view![shown.row]!)}`,
          spec: Spec.noRejoin
        })
      }
      const displays = answers.filter((each) => each.kind === "DISPLAY")
      if (displays.length > 0) {
        context.fail({ what: `player ${letter} quit, but it is still sent DISPLAYs: the server did not forget it`, sent: escaped("KEY l"), got: escaped(displays[0]!.text, 40), spec: Spec.noRejoin })
      }
      const spectator = yield* session.watch()
      spectator.probe.skipAll()
      yield* spectator.probe.send("KEY Q")
      spectator.left = true
      session.spectator = undefined
      yield* spectator.probe.next("QUIT", session.answerMs, (arrival) => arrival.kind === "QUIT").pipe(
        Effect.catchAll(() => Effect.sync(() =>
          context.fail({ what: "the spectator's Q was not answered with QUIT", sent: escaped("KEY Q"), got: spectator.probe.recent(2).join(", ") || "nothing", spec: Spec.spectatorQuitKey })
        ))
      )
      yield* session.watch()
    })
}

/** The spectator no longer shows `letter`. */
const awaitGone = (context: StepContext, letter: string) =>
  Effect.gen(function*() {
    const spectator = yield* context.session.watch()
    yield* context.session.until(spectator, `DISPLAY without ${letter}`, () => context.session.spectatorSees(letter) === undefined, Spec.noRejoin).pipe(
      Effect.catchAll(() => Effect.sync(() =>
        context.fail({
          what: `player ${letter} quit, but the spectator still shows it on the map`,
          sent: escaped("KEY Q"),
          got: spectator.probe.recent(1).join("") || "nothing",
          spec: Spec.noRejoin
        })
      ))
    )
  })

export const playSteps: ReadonlyArray<Step> = [moveKeys, goldToAll, swap, spectatorReplacement, quit]
