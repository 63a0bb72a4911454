import { Effect } from "effect"
import { GoldTotal, MaxPlayers } from "../../core/constants.js"
import { escaped } from "../conformance/lint.js"
import type { Arrival } from "./probe.js"
import { parseStandings, type Standing } from "../../protocol/summary.js"
import { type Client, stop } from "./session.js"
import { Spec } from "../conformance/requirements.js"
import type { Step, StepContext } from "./step.js"
import { pressMove, stepToward } from "./walking.js"

/** The player limit, playing to the end, the summary, and the server going away. */

const wordOf = (arrival: Arrival) => arrival.kind

const playerLimit: Step = {
  name: "player-limit",
  check: "player-limit",
  // A player has quit by then: its letter still counts (it can neither rejoin nor be replaced).
  needs: ["join-spectator", "join-player", "quit"],
  run: (context) =>
    Effect.gen(function*() {
      const { session } = context
      const handed = new Set(session.letters)
      const quitters = session.clients.filter((client) => client.role === "player" && client.left && client.report.letter).length
      while (handed.size < MaxPlayers) {
        const client = yield* session.open("player", `filler ${handed.size + 1}`)
        yield* client.probe.send(`PLAY filler ${handed.size + 1}`)
        const answer = yield* client.probe.gather(session.answerMs, () => client.report.letter !== undefined || client.report.ending !== undefined)
        const letter = client.report.letter
        if (letter === undefined) {
          return yield* stop({
            what: `player number ${handed.size + 1} was not let in${quitters > 0 ? ` (counting ${quitters} that quit)` : ""}, but the game takes ${MaxPlayers}`,
            sent: client.probe.lastSent(),
            got: answer.map((each) => escaped(each.text, 40)).join(", ") || "nothing",
            spec: Spec.maxPlayers
          })
        }
        if (handed.has(letter)) {
          context.fail({ what: `letter ${letter} was handed out a second time`, sent: client.probe.lastSent(), got: `OK ${letter}`, spec: Spec.noRejoin })
        }
        handed.add(letter)
      }
      const extra = yield* session.open("player", "one too many")
      yield* extra.probe.send("PLAY one too many")
      const answer = yield* extra.probe.gather(session.answerMs, (arrivals) => arrivals.length > 0)
      const got = answer.map((each) => escaped(each.text, 60)).join(", ") || `nothing within ${session.answerMs} ms`
      const first = answer[0] ? wordOf(answer[0]) : undefined
      if (first === "OK") {
        return yield* stop({
          what: `with all ${MaxPlayers} letters handed out${quitters > 0 ? ` (${quitters} to players who quit)` : ""}, one more player was let in`,
          sent: escaped("PLAY one too many"),
          got,
          spec: quitters > 0 ? Spec.noRejoin : Spec.gameFull
        })
      }
      if (first === "NO") session.heardDialect("spec", "a full game answered NO")
      if (first === "QUIT") session.heardDialect("cs50-2021", "a full game answered QUIT")
      const expected = session.dialect === "cs50-2021" ? "QUIT" : "NO"
      if (first !== expected) {
        context.fail({
          what: `the player after the last must be answered ${expected}${session.dialect === "cs50-2021" ? " (the 2021 dialect)" : ""}`,
          sent: escaped("PLAY one too many"),
          got,
          spec: Spec.gameFull
        })
      }
    })
}

/** Of the players still in, the first that can reach gold, with its key. */
const nextMove = (context: StepContext) =>
  Effect.gen(function*() {
    for (const player of context.session.activePlayers) {
      const from = yield* context.session.locate(player.report.letter!)
      const key = stepToward(context.session.view!, from, (char) => char === "*")
      if (key) return { player, key }
    }
    return undefined
  })

const gameOver: Step = {
  name: "game-over",
  check: "game-over",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { session } = context
      const spectator = yield* session.watch()
      if (session.playersInGame.length === 0) return yield* stop({ what: "none of the checker's players is in the game to play it to the end", spec: Spec.ok })
      let stuck = 0
      for (let steps = 0; !session.activePlayers.some((each) => each.report.ending) && !spectator.report.ending; steps++) {
        const move = yield* nextMove(context)
        if (move === undefined) {
          if ((session.view ?? []).some((line) => line.includes("*"))) {
            return yield* stop({ what: "no player of the checker can reach the gold left", spec: Spec.spectatorView })
          }
          break
        }
        if (steps > 20_000) return yield* stop({ what: "the game did not end after 20,000 moves", spec: Spec.gameOver })
        stuck = (yield* pressMove(context, move.player, move.key)) ? 0 : stuck + 1
        if (stuck === 3) return yield* stop({ what: "three moves in a row went wrong: the game cannot be played to its end", spec: Spec.moveKeys })
      }
      const everyone = [...session.playersInGame, spectator]
      for (const client of everyone) {
        yield* session.until(client, "game over", () => client.gameOver !== undefined, Spec.gameOver).pipe(
          Effect.catchAll(() => Effect.sync(() =>
            context.fail({
              what: `the last nugget was collected, but ${client.probe.label}${client.report.letter ? ` (${client.report.letter})` : ""} got no ${session.dialect === "cs50-2021" ? "QUIT GAME OVER:" : "GAMEOVER"}`,
              got: client.probe.recent(2).join(", ") || "nothing",
              spec: Spec.gameOver
            })
          ))
        )
      }
      const said = everyone.find((client) => client.gameOver !== undefined)?.gameOver
      if (said === undefined) return
      const form = said.startsWith("GAMEOVER") ? "spec" : "cs50-2021"
      session.heardDialect(form, `its game over came as ${form === "spec" ? "GAMEOVER" : "QUIT GAME OVER:"}`)
      if (form !== session.dialect) {
        context.fail({ what: `the game over came in the ${form === "spec" ? "2019" : "2021"} form, but the server speaks the other dialect`, got: escaped(said, 60), spec: Spec.gameOverMessage })
      }
      judgeSummary(context, said.replace(/^(GAMEOVER|QUIT GAME OVER:)\r?\n?/, ""), everyone)
    })
}

const judgeSummary = (context: StepContext, summary: string, everyone: ReadonlyArray<Client>) => {
  const { session } = context
  const lines = summary.split("\n").filter((line) => line.trim() !== "")
  const standings: Array<Standing> = []
  for (const line of lines) {
    // Read as our client reads it: `L purse name`, or `name L purse` as one 2019 server writes it.
    const standing = parseStandings(line)?.[0]
    if (standing) standings.push(standing)
    else context.fail({ what: "a line of the summary is not a letter, a purse and a name", got: escaped(line), spec: Spec.summaryLines })
  }
  session.standings = standings
  const listed = new Set(standings.map((each) => each.letter))
  const quitters = new Set(session.clients.filter((client) => client.left && client.report.letter).map((client) => client.report.letter!))
  const missing = session.letters.filter((letter) => !listed.has(letter))
  if (missing.length > 0) {
    context.fail({
      what: `the summary has no line for ${missing.join(", ")}${missing.some((letter) => quitters.has(letter)) ? " (among them players who quit, whose nuggets still count)" : ""}`,
      got: escaped(summary, 120),
      spec: Spec.summaryLines
    })
  }
  for (const client of everyone) {
    const line = standings.find((each) => each.letter === client.report.letter)
    if (client.role === "player" && line && line.purse !== client.report.purse) {
      context.fail({ what: `the summary gives ${line.letter} ${line.purse} nuggets, but its last GOLD said ${client.report.purse}`, got: escaped(summary, 120), spec: Spec.summaryLines })
    }
  }
  const total = standings.reduce((sum, each) => sum + each.purse, 0)
  if (missing.length === 0 && total !== GoldTotal) {
    context.fail({ what: `the purses in the summary add up to ${total}, not ${GoldTotal}`, got: escaped(summary, 120), spec: Spec.goldTotal })
  }
  context.note(`${standings.length} players in the summary; ${total} nuggets in all`)
}

const serverExit: Step = {
  name: "server-exit",
  check: "server-exit",
  needs: ["game-over"],
  run: (context) =>
    Effect.gen(function*() {
      const { session } = context
      if (!session.clients.some((client) => client.gameOver !== undefined)) {
        return yield* stop({ what: "not judged: the game never ended", spec: Spec.gameOver })
      }
      const late = yield* session.open("spectator")
      const started = performance.now()
      const deadline = Math.max(session.answerMs, 10_000)
      let answered: string | undefined
      while (performance.now() - started < deadline) {
        yield* late.probe.send("SPECTATE")
        const got = yield* late.probe.gather(500, () => late.probe.portClosed())
        if (late.probe.portClosed()) {
          return context.note(`its port closed ${Math.round(performance.now() - started)} ms after the game ended`)
        }
        const welcome = got.find((each) => /^(GRID|DISPLAY|OK)/.test(each.text))
        if (welcome) answered = escaped(welcome.text, 40)
      }
      const loopback = /^(127\.|::1$)/.test(session.options.server.address)
      if (answered !== undefined || loopback) {
        context.fail({
          what: answered !== undefined
            ? `${deadline / 1000} s after the game ended, the server still lets a spectator in`
            : `${deadline / 1000} s after the game ended, the server's port is still open`,
          sent: escaped("SPECTATE"),
          got: answered ?? "no answer, and no ICMP port unreachable",
          spec: Spec.gameOver
        })
      } else {
        context.note("could not tell: no answer, but no ICMP port unreachable either (the host may not send any)")
      }
    })
}

export const endSteps: ReadonlyArray<Step> = [playerLimit, gameOver, serverExit]
