import { Clock, Effect } from "effect"
import { GoldTotal, MaxPlayers } from "../../core/constants.js"
import { gameOverDialect, gameOverWords } from "../../protocol/dialect.js"
import { parseStandings, type Standing } from "../../protocol/summary.js"
import { stop } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import type { Client, Clients } from "./clients.js"
import type { ServerCheck, ServerRecorder } from "./server-check.js"
import { pressMove, stepToward } from "./walking.js"

/** The player limit, playing to the end, the summary, and the server going away. */

export const playerLimit: ServerCheck<"player-limit", "join-spectator" | "join-player" | "quit"> = {
  name: "player-limit",
  title: "26 players in all, those who quit included; the next is answered NO (QUIT in 2021)",
  // A player has quit by then: its letter still counts (it can neither rejoin nor be replaced).
  needs: ["join-spectator", "join-player", "quit"],
  long: true,
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      const handed = new Set(clients.letters)
      const quitters = clients.all.filter((client) => client.role === "player" && client.left && client.report.letter).length
      while (handed.size < MaxPlayers) {
        const client = yield* clients.open("player", `filler ${handed.size + 1}`)
        yield* client.send(`PLAY filler ${handed.size + 1}`)
        const answer = yield* client.probe.gather(context.answerMs, () => client.report.letter !== undefined || client.report.ending !== undefined)
        const letter = client.report.letter
        if (letter === undefined) {
          return yield* stop({
            what: `player number ${handed.size + 1} was not let in${quitters > 0 ? ` (counting ${quitters} that quit)` : ""}, but the game takes ${MaxPlayers}`,
            sent: client.probe.lastSent(),
            got: answer.map((each) => escaped(each.text, 40)).join(", ") || "nothing",
            spec: Requirements.maxPlayers
          })
        }
        if (handed.has(letter)) {
          context.fail({ what: `letter ${letter} was handed out a second time`, sent: client.probe.lastSent(), got: `OK ${letter}`, spec: Requirements.noRejoin })
        }
        handed.add(letter)
      }
      const extra = yield* clients.open("player", "one too many")
      yield* extra.send("PLAY one too many")
      const answer = yield* extra.probe.gather(context.answerMs, (arrivals) => arrivals.length > 0)
      const got = answer.map((each) => escaped(each.text, 60)).join(", ") || `nothing within ${context.answerMs} ms`
      const first = answer[0]?.kind
      if (first === "OK") {
        return yield* stop({
          what: `with all ${MaxPlayers} letters handed out${quitters > 0 ? ` (${quitters} to players who quit)` : ""}, one more player was let in`,
          sent: escaped("PLAY one too many"),
          got,
          spec: quitters > 0 ? Requirements.noRejoin : Requirements.gameFull
        })
      }
      // NO or QUIT has told the dialect, if nothing had before.
      const dialect = context.traffic.dialect
      const expected = dialect === "2021" ? "QUIT" : "NO"
      if (first !== expected) {
        context.fail({
          what: `the player after the last must be answered ${expected}${dialect === "2021" ? " (the 2021 dialect)" : ""}`,
          sent: escaped("PLAY one too many"),
          got,
          spec: Requirements.gameFull
        })
      }
    })
}

/** Of the players still in, the first that can reach gold, with its key. */
const nextMove = (clients: Clients) =>
  Effect.gen(function*() {
    for (const player of clients.activePlayers) {
      if (player.report.letter === undefined) continue
      const from = yield* clients.locate(player.report.letter)
      const key = stepToward(clients.view ?? [], from, (char) => char === "*")
      if (key) return { player, key }
    }
    return undefined
  })

export const gameOver: ServerCheck<"game-over", "join-spectator" | "join-player"> = {
  name: "game-over",
  title: "the last nugget ends the game: every client gets the summary, one line per player, 250 nuggets in all",
  needs: ["join-spectator", "join-player"],
  long: true,
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      const spectator = yield* clients.watch()
      if (clients.playersInGame.length === 0) return yield* stop({ what: "none of the checker's players is in the game to play it to the end", spec: Requirements.ok })
      let stuck = 0
      for (let steps = 0; !clients.activePlayers.some((each) => each.report.ending) && !spectator.report.ending; steps++) {
        const move = yield* nextMove(clients)
        if (move === undefined) {
          if ((clients.view ?? []).some((line) => line.includes("*"))) {
            return yield* stop({ what: "no player of the checker can reach the gold left", spec: Requirements.spectatorView })
          }
          break
        }
        if (steps > 20_000) return yield* stop({ what: "the game did not end after 20,000 moves", spec: Requirements.gameOver })
        stuck = (yield* pressMove(context, move.player, move.key)) ? 0 : stuck + 1
        if (stuck === 3) return yield* stop({ what: "three moves in a row went wrong: the game cannot be played to its end", spec: Requirements.moveKeys })
      }
      const everyone = [...clients.playersInGame, spectator]
      for (const client of everyone) {
        yield* clients.until(client, "game over", () => client.gameOver !== undefined, Requirements.gameOver).pipe(
          Effect.catchAll(() => Effect.sync(() =>
            context.fail({
              what: `the last nugget was collected, but ${client.probe.label}${client.report.letter ? ` (${client.report.letter})` : ""} got no ${gameOverWords[context.traffic.dialect ?? "2019"]}`,
              got: client.probe.recent(2).join(", ") || "nothing",
              spec: Requirements.gameOver
            })
          ))
        )
      }
      const said = everyone.find((client) => client.gameOver !== undefined)?.gameOver
      if (said === undefined) return undefined
      // The game over has told the dialect, if nothing had before.
      const form = gameOverDialect(said)
      if (form !== context.traffic.dialect) {
        context.fail({ what: `the game over came in the ${form} form, but the server speaks the other dialect`, got: escaped(said, 60), spec: Requirements.gameOverMessage })
      }
      return judgeSummary(context, said.replace(/^(GAMEOVER|QUIT GAME OVER:)\r?\n?/, ""), everyone)
    })
}

/** The summary held against what the players were told; gives it, line by line. */
const judgeSummary = (context: ServerRecorder, summary: string, everyone: ReadonlyArray<Client>): ReadonlyArray<Standing> => {
  const { clients } = context
  const lines = summary.split("\n").filter((line) => line.trim() !== "")
  const standings: Array<Standing> = []
  for (const line of lines) {
    // Read as our client reads it: `L purse name`, or `name L purse` as one 2019 server writes it.
    const standing = parseStandings(line)?.[0]
    if (standing) standings.push(standing)
    else context.fail({ what: "a line of the summary is not a letter, a purse and a name", got: escaped(line), spec: Requirements.summaryLines })
  }
  const listed = new Set(standings.map((each) => each.letter))
  const quitters = new Set(clients.all.flatMap((client) => (client.left && client.report.letter ? [client.report.letter] : [])))
  const missing = clients.letters.filter((letter) => !listed.has(letter))
  if (missing.length > 0) {
    context.fail({
      what: `the summary has no line for ${missing.join(", ")}${missing.some((letter) => quitters.has(letter)) ? " (among them players who quit, whose nuggets still count)" : ""}`,
      got: escaped(summary, 120),
      spec: Requirements.summaryLines
    })
  }
  for (const client of everyone) {
    const line = standings.find((each) => each.letter === client.report.letter)
    if (client.role === "player" && line && line.purse !== client.report.purse) {
      context.fail({ what: `the summary gives ${line.letter} ${line.purse} nuggets, but its last GOLD said ${client.report.purse}`, got: escaped(summary, 120), spec: Requirements.summaryLines })
    }
  }
  const total = standings.reduce((sum, each) => sum + each.purse, 0)
  if (missing.length === 0 && total !== GoldTotal) {
    context.fail({ what: `the purses in the summary add up to ${total}, not ${GoldTotal}`, got: escaped(summary, 120), spec: Requirements.goldTotal })
  }
  context.note(`${standings.length} players in the summary; ${total} nuggets in all`)
  return standings
}

export const serverExit: ServerCheck<"server-exit", "game-over"> = {
  name: "server-exit",
  title: "after the game over the server exits",
  needs: ["game-over"],
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      if (!clients.all.some((client) => client.gameOver !== undefined)) {
        return yield* stop({ what: "not judged: the game never ended", spec: Requirements.gameOver })
      }
      const late = yield* clients.open("spectator")
      const started = yield* Clock.currentTimeMillis
      const deadline = Math.max(context.answerMs, 10_000)
      let answered: string | undefined
      while ((yield* Clock.currentTimeMillis) - started < deadline) {
        yield* late.send("SPECTATE")
        const got = yield* late.probe.gather(500, () => late.probe.portClosed())
        if (late.probe.portClosed()) {
          return context.note(`its port closed ${Math.round((yield* Clock.currentTimeMillis) - started)} ms after the game ended`)
        }
        const welcome = got.find((each) => /^(GRID|DISPLAY|OK)/.test(each.text))
        if (welcome) answered = escaped(welcome.text, 40)
      }
      const loopback = /^(127\.|::1$)/.test(clients.options.server.address)
      if (answered !== undefined || loopback) {
        context.fail({
          what: answered !== undefined
            ? `${deadline / 1000} s after the game ended, the server still lets a spectator in`
            : `${deadline / 1000} s after the game ended, the server's port is still open`,
          sent: escaped("SPECTATE"),
          got: answered ?? "no answer, and no ICMP port unreachable",
          spec: Requirements.gameOver
        })
      } else {
        context.note("could not tell: no answer, but no ICMP port unreachable either (the host may not send any)")
      }
    })
}

