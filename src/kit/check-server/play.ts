import { Effect } from "effect"
import { MoveDirections } from "../../core/constants.js"
import { stop } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import { firstPlayer, somePlayer } from "./join.js"
import type { ServerCheck, ServerRecorder } from "./server-check.js"
import { expectedMove, letterOf, pressMove, same, walkTo, where } from "./walking.js"

/** Playing: every move key and its run, gold that everyone hears of, swapping places, the spectator replaced, quitting. */

export const moveKeys: ServerCheck<"move-keys", "join-spectator" | "join-player"> = {
  name: "move-keys",
  title: "each move key moves one step where possible, each capital runs as far as possible, and all clients see it",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const player = yield* firstPlayer(context)
      for (const key of "hljkyubn") yield* pressMove(context, player, key)
      let blocked = false
      for (const key of "HLJKYUBN") {
        yield* pressMove(context, player, key)
        // Right after a run, one more step the same way is not possible: nothing may move.
        const letter = player.report.letter
        const from = letter === undefined ? undefined : context.clients.spectatorSees(letter)
        const view = context.clients.view
        const lower = key.toLowerCase()
        if (!blocked && from && view && same(expectedMove(view, from, lower).to, from)) {
          blocked = true
          yield* pressMove(context, player, lower)
        }
      }
    })
}

export const goldToAll: ServerCheck<"gold-to-all", "join-spectator" | "join-player"> = {
  name: "gold-to-all",
  title: "gold collected is told with GOLD to the collector (n, p, r) and to everyone else (r)",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      const collector = yield* firstPlayer(context)
      const other = yield* somePlayer(context, 1)
      const spectator = yield* clients.watch()
      // The nuggets left as last told to anyone: the count only falls, so the smallest.
      const before = Math.min(...clients.all.flatMap((client) => (client.gold ? [client.gold.r] : [])))
      const purse = collector.report.purse
      yield* walkTo(context, collector, (char) => char === "*", "reach gold")
      const collected = yield* clients.until(collector, "GOLD after stepping on gold", () => collector.report.purse > purse, Requirements.collects).pipe(
        Effect.as(true),
        Effect.catchAll((error) => Effect.sync(() => (context.fail(error.failure), false)))
      )
      const remaining = collector.report.remaining
      if (!collected || remaining === undefined) return
      const gained = collector.report.purse - purse
      if (before - remaining !== gained) {
        context.fail({
          what: `the player gained ${gained} nuggets, but nuggets left went from ${before} to ${remaining}`,
          sent: collector.probe.lastSent(),
          got: collector.probe.recent(2).join(", "),
          spec: Requirements.gold
        })
      }
      for (const [client, who] of [[spectator, "the spectator"], [other, `player ${other.report.letter}`]] as const) {
        const told = yield* clients.until(client, `GOLD with ${remaining} nuggets left`, () => client.report.remaining === remaining, Requirements.goldToAll).pipe(
          Effect.as(true),
          Effect.catchAll(() => Effect.succeed(false))
        )
        if (!told) {
          context.fail({
            what: `player ${collector.report.letter} collected gold, but ${who} was not sent a GOLD saying ${remaining} nuggets are left`,
            sent: collector.probe.lastSent(),
            got: client.probe.recent(3).join(", ") || "nothing",
            spec: Requirements.goldToAll
          })
          continue
        }
        const gold = client.gold
        if (gold && client === spectator && (gold.n !== 0 || gold.p !== 0)) {
          context.fail({ what: "the spectator's GOLD must say n=0, p=0", got: `GOLD ${gold.n} ${gold.p} ${gold.r}`, spec: Requirements.spectatorGold })
        }
        if (gold && client === other && gold.n !== 0) {
          context.fail({ what: `player ${other.report.letter} collected nothing, but its GOLD says n=${gold.n}`, got: `GOLD ${gold.n} ${gold.p} ${gold.r}`, spec: Requirements.gold })
        }
      }
    })
}

export const swap: ServerCheck<"swap", "join-spectator" | "join-player"> = {
  name: "swap",
  title: "moving onto another player swaps the two",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      const mover = yield* firstPlayer(context)
      const other = yield* somePlayer(context, 1)
      const moverLetter = yield* letterOf(mover)
      const letter = yield* letterOf(other)
      const beside = (at: { row: number; col: number }) => {
        const there = clients.spectatorSees(letter)
        return there !== undefined && Math.abs(there.row - at.row) <= 1 && Math.abs(there.col - at.col) <= 1 && !same(there, at)
      }
      // Up to the cell next to the other player, then one step onto it.
      yield* clients.locate(letter)
      if (!beside(yield* clients.locate(moverLetter))) {
        yield* walkTo(context, mover, (_char, at) => beside(at), `come next to player ${letter}`)
      }
      const moverAt = yield* clients.locate(moverLetter)
      const otherAt = yield* clients.locate(letter)
      const key = Object.entries(MoveDirections)
        .find(([, [dRow, dCol]]) => moverAt.row + dRow === otherAt.row && moverAt.col + dCol === otherAt.col)?.[0]
      if (key === undefined) return yield* stop({ what: `player ${moverLetter} did not end next to ${letter}`, spec: Requirements.swap })
      const moved = yield* pressMove(context, mover, key)
      if (!moved) return
      const swapped = yield* clients.until(other, `DISPLAY with @ at ${where(moverAt)}`, () => same(other.report.position, moverAt), Requirements.swap).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      if (!swapped || !same(clients.spectatorSees(letter), moverAt)) {
        context.fail({
          what: `player ${moverLetter} moved onto ${letter} at ${where(otherAt)}; ${letter} should now stand at ${where(moverAt)}, ` +
            `but its DISPLAY shows it at ${where(other.report.position)} and the spectator at ${where(clients.spectatorSees(letter))}`,
          sent: escaped(`KEY ${key}`),
          got: other.probe.recent(1).join("") || "nothing",
          spec: Requirements.swap
        })
      }
    })
}

export const spectatorReplacement: ServerCheck<"spectator-replacement", "join-spectator" | "join-player"> = {
  name: "spectator-replacement",
  title: "a new spectator replaces the old one, which gets QUIT and nothing more",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      const first = yield* clients.watch()
      const second = yield* clients.open("spectator")
      first.probe.skipAll()
      yield* second.send("SPECTATE")
      const welcomed = yield* second.probe.gather(context.answerMs, () => second.report.view !== undefined)
      if (second.report.view === undefined) {
        return yield* stop({ what: "a second spectator was not let in", sent: escaped("SPECTATE"), got: welcomed.map((each) => escaped(each.text, 40)).join(", ") || "nothing", spec: Requirements.replaceSpectator })
      }
      // Let in, it is the spectator the checks watch through from now on.
      const told = yield* first.probe.next("QUIT", context.answerMs, (arrival) => arrival.kind === "QUIT").pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      if (!told) {
        context.fail({ what: "the spectator it replaced was not told to QUIT", sent: `${escaped("SPECTATE")} (from another client)`, got: first.probe.recent(2).join(", ") || "nothing", spec: Requirements.replaceSpectator })
      }
      // Forgotten: the next move reaches the new spectator, not the old one.
      const player = yield* firstPlayer(context)
      first.probe.skipAll()
      const from = yield* clients.locate(yield* letterOf(player))
      const view = clients.view ?? []
      const key = [..."hljkyubn"].find((each) => !same(expectedMove(view, from, each).to, from))
      if (key === undefined) return
      yield* pressMove(context, player, key)
      const after = yield* first.probe.gather(Math.min(300, context.answerMs))
      const [display, ...more] = after.filter((each) => each.kind === "DISPLAY")
      if (display !== undefined) {
        context.fail({
          what: `the replaced spectator still gets DISPLAYs (${more.length + 1} after a move): the server did not forget it`,
          sent: `${escaped(`KEY ${key}`)} (from player ${player.report.letter})`,
          got: escaped(display.text, 40),
          spec: Requirements.oneSpectator
        })
      }
    })
}

export const quit: ServerCheck<"quit", "join-spectator" | "join-player"> = {
  name: "quit",
  title: "Q is answered with QUIT, and the player leaves the map for good",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      const leaver = yield* clients.joinPlayer("leaver")
      const letter = yield* letterOf(leaver)
      yield* clients.locate(letter)
      yield* leaver.send("KEY Q")
      yield* leaver.probe.next("QUIT", context.answerMs, (arrival) => arrival.kind === "QUIT").pipe(
        Effect.catchAll(() => Effect.sync(() =>
          context.fail({ what: "a player's Q was not answered with QUIT", sent: escaped("KEY Q"), got: leaver.probe.recent(2).join(", ") || "nothing", spec: Requirements.quit })
        ))
      )
      yield* awaitGone(context, letter)
      // Gone for good: its keys move nothing, and its letter never comes back.
      leaver.probe.skipAll()
      yield* leaver.send("KEY l")
      const answers = yield* leaver.probe.gather(Math.min(300, context.answerMs))
      const shown = clients.spectatorSees(letter)
      if (shown !== undefined) {
        context.fail({
          what: `player ${letter} quit, but after a key from it the spectator shows ${letter} again, at ${where(shown)}`,
          sent: escaped("KEY l"),
          got: `DISPLAY row ${shown.row}: ${escaped(clients.view?.[shown.row] ?? "")}`,
          spec: Requirements.noRejoin
        })
      }
      const display = answers.find((each) => each.kind === "DISPLAY")
      if (display !== undefined) {
        context.fail({ what: `player ${letter} quit, but it is still sent DISPLAYs: the server did not forget it`, sent: escaped("KEY l"), got: escaped(display.text, 40), spec: Requirements.noRejoin })
      }
      // The spectator quits too (sending Q, it is no longer the one watched); another watches on.
      const spectator = yield* clients.watch()
      spectator.probe.skipAll()
      yield* spectator.send("KEY Q")
      yield* spectator.probe.next("QUIT", context.answerMs, (arrival) => arrival.kind === "QUIT").pipe(
        Effect.catchAll(() => Effect.sync(() =>
          context.fail({ what: "the spectator's Q was not answered with QUIT", sent: escaped("KEY Q"), got: spectator.probe.recent(2).join(", ") || "nothing", spec: Requirements.spectatorQuitKey })
        ))
      )
      yield* clients.watch()
    })
}

/** The spectator no longer shows `letter`. */
const awaitGone = (context: ServerRecorder, letter: string) =>
  Effect.gen(function*() {
    const spectator = yield* context.clients.watch()
    yield* context.clients.until(spectator, `DISPLAY without ${letter}`, () => context.clients.spectatorSees(letter) === undefined, Requirements.noRejoin).pipe(
      Effect.catchAll(() => Effect.sync(() =>
        context.fail({
          what: `player ${letter} quit, but the spectator still shows it on the map`,
          sent: escaped("KEY Q"),
          got: spectator.probe.recent(1).join("") || "nothing",
          spec: Requirements.noRejoin
        })
      ))
    )
  })

