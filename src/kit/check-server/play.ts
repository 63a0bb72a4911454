import { Effect } from "effect"
import { MoveDirections, MoveKeys } from "../../core/constants.js"
import type { UdpError } from "../../net/udp.js"
import { type NotRun, type Stop, stop } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import { type Requirement, Requirements } from "../conformance/requirements.js"
import type { Client, GoldSaid } from "./client.js"
import { firstPlayer, somePlayer } from "./join.js"
import type { Arrival } from "./probe.js"
import type { ServerCheck, ServerRecorder } from "./server-check.js"
import { expectedMove, letterOf, placed, pressMove, same, walkTo, where } from "./walking.js"

/** Playing: every move key and its run, gold that everyone hears of, swapping places, the spectator replaced, quitting. */

export const moveKeys: ServerCheck<"move-keys", "join-spectator" | "join-player"> = {
  name: "move-keys",
  title: "each move key moves one step where possible, each capital runs as far as possible, and all clients see it",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const player = yield* firstPlayer(context)
      for (const key of MoveKeys) yield* pressMove(context, player, key)
      let blocked = false
      for (const key of MoveKeys.map((each) => each.toUpperCase())) {
        yield* pressMove(context, player, key)
        // Right after a run, one more step the same way is not possible: nothing may move.
        const from = context.clients.whereIs(player)
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
      // Where each one's GOLDs from now on begin: every one is judged, not only the last.
      const told = new Map([collector, spectator, other].map((client) => [client, client.golds.length]))
      const goldsOf = (client: Client) => client.golds.slice(told.get(client))
      yield* walkTo(context, collector, (char) => char === "*", "reach gold")
      const collected = yield* clients.until(collector, "GOLD after stepping on gold", () => collector.report.purse > purse, Requirements.collects).pipe(
        Effect.as(true),
        Effect.catchAll((error) =>
          Effect.sync(() => {
            const at = clients.whereIs(collector)
            context.fail({
              ...error.failure,
              what: `${collector.who} stepped onto gold the spectator showed at ${where(at)}, and collected nothing: no GOLD with a larger purse than ${purse} came`
            })
            return false
          })
        )
      )
      const remaining = collector.report.remaining
      if (!collected || remaining === undefined) return
      const gained = collector.report.purse - purse
      judgeEveryGold(context, collector, goldsOf(collector), before)
      if (before - remaining !== gained) {
        context.fail({
          what: `the player gained ${gained} nuggets, but nuggets left went from ${before} to ${remaining}`,
          sent: collector.probe.lastSent(),
          got: collector.probe.recent(2).join(", "),
          spec: Requirements.gold
        })
      }
      // Both told at once: their GOLDs are on their way together.
      const toldLeft = yield* Effect.forEach([spectator, other], (client) =>
        clients.until(client, `GOLD with ${remaining} nuggets left`, () => client.report.remaining === remaining, Requirements.goldToAll).pipe(
          Effect.as(true),
          Effect.catchAll(() => Effect.succeed(false))
        ), { concurrency: "unbounded" })
      for (const [index, client] of [spectator, other].entries()) {
        // Sent before the collection or after it, each GOLD says one of the two counts.
        const wrong = goldsOf(client).find((gold) => gold.r !== before && gold.r !== remaining)
        if (wrong !== undefined) {
          context.fail({
            what: `player ${collector.report.letter} collected ${gained} nuggets, ${before} left before and ${remaining} after; ${client === spectator ? "the spectator" : `player ${other.report.letter}`} was sent a GOLD saying ${wrong.r} are left`,
            sent: collector.probe.lastSent(),
            got: goldsOf(client).map((gold) => gold.text).join(", "),
            spec: Requirements.goldToAll
          })
        }
        if (toldLeft[index]) continue
        context.fail({
          what: `player ${collector.report.letter} collected gold, but ${client === spectator ? "the spectator" : `player ${other.report.letter}`} was not sent a GOLD saying ${remaining} nuggets are left`,
          sent: collector.probe.lastSent(),
          got: client.probe.recent(3).join(", ") || "nothing",
          spec: Requirements.goldToAll
        })
      }
      const gold = other.gold
      if (toldLeft[1] && gold && gold.n !== 0) {
        context.fail({ what: `player ${other.report.letter} collected nothing, but its GOLD says n=${gold.n}`, got: `GOLD ${gold.n} ${gold.p} ${gold.r}`, spec: Requirements.gold })
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
      // Where the other stands, by its own DISPLAY: it does not move meanwhile.
      const otherAt = yield* placed(context, other)
      const beside = (at: { row: number; col: number }) => Math.abs(otherAt.row - at.row) <= 1 && Math.abs(otherAt.col - at.col) <= 1 && !same(otherAt, at)
      // Up to the cell next to the other player, then one step onto it.
      if (!beside(yield* placed(context, mover))) {
        yield* walkTo(context, mover, (_char, at) => beside(at), `come next to player ${letter}`)
      }
      const moverAt = yield* placed(context, mover)
      const key = Object.entries(MoveDirections)
        .find(([, [dRow, dCol]]) => moverAt.row + dRow === otherAt.row && moverAt.col + dCol === otherAt.col)?.[0]
      if (key === undefined) return yield* stop({ what: `player ${moverLetter} did not end next to ${letter}`, spec: Requirements.swap })
      const moved = yield* pressMove(context, mover, key)
      if (!moved) return
      const spectator = yield* clients.watch()
      const [swapped, seen] = yield* Effect.all([
        clients.until(other, `DISPLAY with @ at ${where(moverAt)}`, () => same(other.report.position, moverAt), Requirements.swap),
        clients.until(spectator, `DISPLAY with ${letter} at ${where(moverAt)}`, () => same(clients.spectatorSees(letter), moverAt), Requirements.swap)
      ].map((wait) => wait.pipe(Effect.as(true), Effect.catchAll(() => Effect.succeed(false)))), { concurrency: "unbounded" })
      if (!swapped || !seen) {
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

/**
 * Each GOLD the collector got on its way to the gold, held against the nuggets left when it
 * was sent: `before`, less what it had collected by then. A wrong count followed by a right
 * one is still a wrong GOLD: a client shows it meanwhile.
 */
const judgeEveryGold = (context: ServerRecorder, collector: Client, golds: ReadonlyArray<GoldSaid>, before: number) => {
  let taken = 0
  for (const gold of golds) {
    taken += Math.max(0, gold.n)
    if (gold.r === before - taken) continue
    const later = golds.slice(golds.indexOf(gold) + 1).some((each) => each.r === before - taken)
    return context.fail({
      what: `player ${collector.report.letter} was sent a GOLD saying ${gold.r} nuggets are left${gold.n > 0 ? ` as it collected ${gold.n}` : ""}, when ${before - taken} were` +
        (later ? ": a later GOLD said so, but a client shows the wrong count meanwhile" : ""),
      sent: collector.probe.lastSent(),
      got: golds.map((each) => each.text).join(", "),
      spec: Requirements.gold
    })
  }
}

/** A move by one of the checker's players, to make the server send everyone what changed; the key pressed. */
const someMove = (context: ServerRecorder, player: Client): Effect.Effect<string | undefined, Stop | NotRun | UdpError> =>
  Effect.gen(function*() {
    const from = yield* placed(context, player)
    const view = context.clients.view ?? []
    const key = MoveKeys.find((each) => !same(expectedMove(view, from, each).to, from))
    if (key === undefined) return undefined
    yield* pressMove(context, player, key)
    return key
  })

/** What came to `client` that is not QUIT, as a report lists it. */
const messagesBut = (arrivals: ReadonlyArray<Arrival>, but: string) => arrivals.filter((each) => each.kind !== but)

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
      const key = yield* someMove(context, player)
      if (key === undefined) return
      const after = messagesBut(yield* first.probe.gather(Math.min(300, context.answerMs)), "QUIT")
      if (after.length > 0) {
        context.fail({
          what: `the replaced spectator still gets messages (${after.length} after a move): the server did not forget it`,
          sent: `${escaped(`KEY ${key}`)} (from player ${player.report.letter})`,
          got: escaped(after[0]!.text, 40),
          spec: Requirements.oneSpectator
        })
      }
    })
}

/**
 * `client` presses Q and is answered QUIT; when it is not, whether `q` does it (the spec's key
 * is Q). Whether it was told to quit.
 */
const pressQuit = (context: ServerRecorder, client: Client, spec: Requirement): Effect.Effect<boolean, UdpError> =>
  Effect.gen(function*() {
    const quitWithin = (key: string) =>
      client.send(`KEY ${key}`).pipe(
        Effect.zipRight(client.probe.next("QUIT", context.answerMs, (arrival) => arrival.kind === "QUIT" || arrival.kind === "GAMEOVER")),
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
    client.probe.skipAll()
    if (yield* quitWithin("Q")) return true
    const got = client.probe.recent(2).join(", ") || "nothing"
    const lower = yield* quitWithin("q")
    context.fail({
      what: lower ? `${client.who} pressed Q and nothing happened; q quits: the spec's key is Q` : `${client.who} pressed Q and was not answered QUIT`,
      sent: escaped("KEY Q"),
      got,
      spec
    })
    return lower
  })

export const quit: ServerCheck<"quit", "join-spectator" | "join-player"> = {
  name: "quit",
  title: "Q is answered with QUIT; the player leaves the map for good, and neither it nor a spectator that quit is sent more",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      const leaver = yield* clients.joinPlayer("leaver")
      const letter = yield* letterOf(leaver)
      const mover = yield* firstPlayer(context)
      yield* clients.watch()
      yield* pressQuit(context, leaver, Requirements.quit)
      // Someone else moves: the spectator is sent the map, which must no longer show the one who quit.
      leaver.probe.skipAll()
      const key = yield* someMove(context, mover)
      const shown = key === undefined ? undefined : clients.spectatorSees(letter)
      if (shown !== undefined) {
        context.fail({
          what: `player ${letter} quit, but after a move by ${mover.who} the spectator still shows ${letter}, at ${where(shown)}`,
          sent: `${escaped("KEY Q")}, then ${escaped(`KEY ${key}`)} from ${mover.who}`,
          got: `DISPLAY row ${shown.row}: ${escaped(clients.view?.[shown.row] ?? "")}`,
          spec: Requirements.noRejoin
        })
      }
      // Gone for good: its keys move nothing, and it is sent nothing more.
      yield* leaver.send("KEY l")
      const answers = messagesBut(yield* leaver.probe.gather(Math.min(300, context.answerMs)), "QUIT")
      const again = clients.spectatorSees(letter)
      if (shown === undefined && again !== undefined) {
        context.fail({
          what: `player ${letter} quit, but after a key from it the spectator shows ${letter} again, at ${where(again)}`,
          sent: escaped("KEY l"),
          got: `DISPLAY row ${again.row}: ${escaped(clients.view?.[again.row] ?? "")}`,
          spec: Requirements.noRejoin
        })
      }
      const display = answers.find((each) => each.kind === "DISPLAY" || each.kind === "GOLD")
      if (display !== undefined) {
        context.fail({ what: `player ${letter} quit, but it is still sent ${display.kind} messages: the server did not forget it`, sent: `${escaped("KEY l")}, and moves by others`, got: escaped(display.text, 40), spec: Requirements.quit })
      }
      // The spectator quits too, and is sent nothing after (no other spectator is let in meanwhile: that would have it forgotten anyway).
      const spectator = yield* clients.watch()
      const from = yield* placed(context, mover)
      const moveKey = MoveKeys.find((each) => !same(expectedMove(clients.view ?? [], from, each).to, from))
      if (!(yield* pressQuit(context, spectator, Requirements.spectatorQuitKey)) || moveKey === undefined) return
      spectator.probe.skipAll()
      yield* mover.send(`KEY ${moveKey}`)
      yield* mover.probe.gather(Math.min(300, context.answerMs))
      const after = messagesBut(yield* spectator.probe.gather(Math.min(100, context.answerMs)), "QUIT")
      if (after.length > 0) {
        context.fail({
          what: `the spectator pressed Q and was told QUIT, but it is still sent messages (${after.length} after a move by ${mover.who})`,
          sent: `${escaped("KEY Q")}, then ${escaped(`KEY ${moveKey}`)} from ${mover.who}`,
          got: escaped(after[0]!.text, 40),
          spec: Requirements.quit
        })
      }
      // Another watches on, so that what follows is seen.
      yield* clients.watch()
    })
}
