import { Clock, Deferred, Effect } from "effect"
import { GoldTotal, MaxPlayers } from "../../core/constants.js"
import { gameOverDialect, gameOverWords } from "../../protocol/dialect.js"
import { parseStandings, type Standing } from "../../protocol/summary.js"
import { notRun, stop } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import type { Client } from "./client.js"
import type { Clients } from "./clients.js"
import { somePlayer } from "./join.js"
import { exitWords } from "./launch.js"
import type { Arrival } from "./probe.js"
import type { ServerCheck, ServerRecorder } from "./server-check.js"
import { pressMove, stepToward } from "./walking.js"

/** The player limit, playing to the end, the summary, and the server going away. */

const refusals = ["NO", "QUIT", "ERROR"]

/** The answer to a PLAY, once OK or a refusal has come (whatever came with it, a stray GRID say, aside). */
const answerTo = (arrivals: ReadonlyArray<Arrival>) => arrivals.find((each) => each.kind === "OK" || refusals.includes(each.kind))

export const playerLimit: ServerCheck<"player-limit", "join-player"> = {
  name: "player-limit",
  title: "26 players in all, those who quit included; the next is answered NO (QUIT in 2021)",
  needs: ["join-player"],
  freshGame: true,
  deadlineMs: (answerMs) => Math.max(30_000, 4 * answerMs),
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      // A player that has quit: its letter still counts (it can neither rejoin nor be replaced).
      if (!clients.all.some((client) => client.role === "player" && client.left && client.report.letter)) {
        // Some servers end the game when their last player quits: one stays.
        if (clients.activePlayers.length === 0) yield* clients.joinPlayer("stayer")
        const leaver = yield* clients.joinPlayer("leaver")
        yield* leaver.send("KEY Q")
        yield* leaver.probe.next("QUIT", context.answerMs, (arrival) => arrival.kind === "QUIT").pipe(Effect.ignore)
      }
      const handed = new Set(clients.letters)
      const quitters = clients.all.filter((client) => client.role === "player" && client.left && client.report.letter).length
      while (handed.size < MaxPlayers) {
        const client = yield* clients.open("player", `filler ${handed.size + 1}`)
        yield* client.send(`PLAY filler ${handed.size + 1}`)
        const answer = yield* client.probe.gather(context.answerMs, (arrivals) => answerTo(arrivals) !== undefined)
        const letter = client.report.letter
        if (letter === undefined && clients.gameEnded) return yield* notRun("the server ended its game while players joined (see game-over)")
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
      const answer = yield* extra.probe.gather(context.answerMs, (arrivals) => answerTo(arrivals) !== undefined)
      const got = answer.map((each) => escaped(each.text, 60)).join(", ") || `nothing within ${context.answerMs} ms`
      const first = answerTo(answer)?.kind
      if (first === "OK") {
        if (extra.report.letter !== undefined) context.traffic.letInBeyondLimit(extra.report.letter)
        const said = answerTo(answer)?.text.slice(3).trim()
        if (said !== undefined && !/^[A-Za-z]$/.test(said)) context.traffic.letInBeyondLimit(said)
        return yield* stop({
          what: `with all ${MaxPlayers} letters handed out${quitters > 0 ? ` (${quitters} to players who quit)` : ""}, one more player was let in`,
          sent: escaped("PLAY one too many"),
          got,
          spec: quitters > 0 ? Requirements.noRejoin : Requirements.gameFull
        })
      }
      // NO or QUIT has told the dialect, if nothing had before.
      const dialect = context.traffic.dialect
      const expected = dialect === "2021" ? ["QUIT", "ERROR"] : ["NO"]
      if (first === undefined || !expected.includes(first)) {
        context.fail({
          what: first === undefined
            ? `the player after the last got no answer; it must be answered ${expected.join(" or ")}`
            : `the player after the last must be answered ${expected.join(" or ")}${dialect === "2021" ? " (the 2021 dialect)" : ""}`,
          sent: escaped("PLAY one too many"),
          got,
          spec: Requirements.gameFull
        })
      }
      const stray = answer.filter((each) => each.kind === "GRID" || each.kind === "DISPLAY" || each.kind === "GOLD")
      if (first !== undefined && first !== "OK" && stray.length > 0) {
        context.warn({ what: `the player it turned away was also sent ${stray.map((each) => each.kind).join(", ")}, which are for clients let in`, sent: escaped("PLAY one too many"), got, spec: Requirements.grid })
      }
    })
}

/** Of the players still in, the first whose place is known that can reach gold, with its key. */
const nextMove = (clients: Clients) => {
  for (const player of clients.activePlayers) {
    const from = clients.whereIs(player)
    const key = from === undefined ? undefined : stepToward(clients.view ?? [], from, (char) => char === "*")
    if (key) return { player, key }
  }
  return undefined
}

/** Moves that a whole game may take on the map, at most. */
const maxMoves = 20_000

const gameOverMs = (answerMs: number) => Math.max(25_000, 4 * answerMs)

/**
 * The game could not be played to its end, for what earlier checks judge (moves that go
 * wrong, players drawn where they cannot be found): played again from its own start on a
 * server started afresh, when the checker starts the server; else not run, saying why.
 */
const cannotPlay = (context: ServerRecorder, short: string, why: string) =>
  context.startAfresh(`its game could not be played to its end: ${short}`)
    ? notRun(`played again from its own start: ${why}`)
    : notRun(`the game could not be played to its end: ${why}; that is for the checks of moves and drawing to judge (run again with --only game-over on a fresh server)`)

export const gameOver: ServerCheck<"game-over", "join-spectator" | "join-player"> = {
  name: "game-over",
  title: "the last nugget ends the game: every client gets the summary, one line per player, 250 nuggets in all",
  needs: ["join-spectator", "join-player"],
  deadlineMs: gameOverMs,
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      const spectator = yield* clients.watch()
      if (clients.activePlayers.length === 0) yield* somePlayer(context)
      // Where moves go wrong or leave a player drawn nowhere is for move-keys and occupants-drawn to judge, not the end of the game.
      const wrongMoves: Array<string> = []
      let drawnNowhere = 0
      const moving: ServerRecorder = { ...context, fail: (failure) => void wrongMoves.push(failure.what) }
      // Time enough left after play for the game over to come to every client.
      const playMs = gameOverMs(context.answerMs) - 2 * context.answerMs - 1000
      const playUntil = (yield* Clock.currentTimeMillis) + playMs
      const defects = () =>
        [
          wrongMoves.length > 0 ? `${wrongMoves.length} of its moves went wrong (the first: ${wrongMoves[0]})` : "",
          drawnNowhere > 0 ? `a player was drawn nowhere after ${drawnNowhere} of its moves (gold or another player drawn where it stands)` : ""
        ].filter(Boolean).join("; ")
      let stuck = 0
      let joined = 0
      for (let steps = 0; !clients.gameEnded; steps++) {
        // A spectator told to go (replaced, say) is not the game's end: another watches on.
        yield* clients.watch()
        const move = nextMove(clients)
        // A player drawn nowhere cannot be walked: another joins to play on (what is drawn is occupants-drawn's to judge).
        if (move === undefined && joined < 3 && clients.activePlayers.some((each) => clients.whereIs(each) === undefined)) {
          joined++
          yield* clients.joinPlayer(`checker ${clients.all.length + 1}`)
          continue
        }
        if (move === undefined) {
          if (clients.gameEnded) break
          if ((clients.view ?? []).some((line) => line.includes("*"))) {
            return yield* stop({ what: "no player of the checker can reach the gold the spectator still shows", got: `${clients.activePlayers.length} players in the game`, spec: Requirements.spectatorView })
          }
          break
        }
        if (steps > maxMoves) return yield* stop({ what: `the game did not end after ${maxMoves} moves`, spec: Requirements.gameOver })
        stuck = (yield* pressMove(moving, move.player, move.key)) ? 0 : stuck + 1
        if (clients.whereIs(move.player) === undefined && !clients.gameEnded) drawnNowhere++
        if (stuck === 3) return yield* cannotPlay(context, "three moves in a row went wrong", `three moves in a row went wrong (the last: ${wrongMoves.at(-1)})`)
        // Out of time, not from a slow server but from one whose players cannot be walked: judged elsewhere.
        if ((yield* Clock.currentTimeMillis) > playUntil && !clients.gameEnded && defects() !== "") {
          const late = `it was not over after ${Math.round(playMs / 1000)} s of play`
          return yield* cannotPlay(context, `${late}, its players drawn nowhere or its moves wrong`, `${late}, as ${defects()}`)
        }
      }
      if (wrongMoves.length > 0) context.note(`${wrongMoves.length} of its moves on the way went wrong (move-keys judges moves): ${wrongMoves[0]}`)
      // Those still in the game when it ended: not those told to go before (a spectator replaced).
      const stillIn = (client: Client) => !client.left && (client.report.ending === undefined || client.report.ending._tag === "GameOver")
      const everyone = [...clients.playersInGame, spectator].filter(stillIn)
      // Every client at once: the game over goes to all together, in whatever order they come.
      yield* Effect.forEach(everyone, (client) => clients.until(client, "game over", () => client.gameOver !== undefined, Requirements.gameOver).pipe(Effect.ignore), {
        concurrency: "unbounded"
      })
      if (!clients.gameEnded) {
        const watching = clients.spectator ?? spectator
        const left = watching.report.remaining
        return yield* stop({
          what: `the spectator shows no gold left${left !== undefined ? ` (its last GOLD says ${left} left)` : ""}, but no client got a game over within ${context.answerMs} ms`,
          sent: watching.probe.lastSent(),
          got: watching.probe.recent(2).join(", ") || "nothing",
          spec: Requirements.gameOver
        })
      }
      const words = gameOverWords[context.traffic.dialect ?? "2019"]
      for (const client of everyone.filter((each) => each.gameOver === undefined)) {
        context.fail({
          what: `the game ended (others got ${words}), but ${client.who} did not`,
          got: client.probe.recent(2).join(", ") || "nothing",
          spec: Requirements.gameOver
        })
      }
      const said = everyone.find((client) => client.gameOver !== undefined)?.gameOver
      if (said === undefined) return undefined
      // The game over has told the dialect, if nothing had before.
      const form = gameOverDialect(said)
      if (form !== context.traffic.dialect) {
        context.fail({ what: `the game over came in the ${form} form, but the server speaks the other dialect`, got: escaped(said, 60), spec: Requirements.gameOverMessage })
      }
      return { standings: judgeSummary(context, said.replace(/^(GAMEOVER|QUIT GAME OVER:?)[ \t]*\r?\n?/, ""), everyone), clients }
    })
}

/** The summary held against what the players were told; gives it, line by line. */
const judgeSummary = (context: ServerRecorder, summary: string, everyone: ReadonlyArray<Client>): ReadonlyArray<Standing> => {
  const { clients } = context
  const lines = summary.split("\n").filter((line) => line.trim() !== "")
  const standings: Array<Standing> = []
  for (const line of lines) {
    // Read as our client reads it: `L purse name`, `name L purse`, `L name purse`, with spaces or tabs.
    const standing = parseStandings(line)?.[0]
    if (standing) standings.push(standing)
    else context.fail({ what: "a line of the summary is not a letter, a purse and a name", got: escaped(line), spec: Requirements.summaryLines })
  }
  const listed = new Set(standings.map((each) => each.letter))
  const quitters = new Set(clients.all.flatMap((client) => (client.left && client.report.letter ? [client.report.letter] : [])))
  const missing = clients.letters.filter((letter) => !listed.has(letter))
  const missingIn = missing.filter((letter) => !quitters.has(letter))
  const missingQuit = missing.filter((letter) => quitters.has(letter))
  if (missingIn.length > 0) {
    context.fail({ what: `the summary has no line for ${missingIn.join(", ")}`, got: escaped(summary, 120), spec: Requirements.summaryLines })
  }
  if (missingQuit.length > 0) {
    // "One line per player": whether one who quit still counts, the spec does not say.
    context.warn({ what: `the summary has no line for ${missingQuit.join(", ")}, who quit (the spec asks for one line per player, and does not say whether one who quit is left out)`, got: escaped(summary, 120), spec: Requirements.summaryLines })
  }
  for (const client of everyone) {
    const line = standings.find((each) => each.letter === client.report.letter)
    if (client.role === "player" && line && line.purse !== client.report.purse) {
      const last = line.purse > client.report.purse && client.report.remaining !== 0
      context.fail({
        what: `the summary gives ${line.letter} ${line.purse} nuggets, but its last GOLD said ${client.report.purse}` +
          (last ? ` (with ${client.report.remaining} nuggets left: the GOLD for what it collected last was never sent)` : ""),
        got: escaped(summary, 120),
        spec: last ? Requirements.goldToAll : Requirements.summaryLines
      })
    }
  }
  const total = standings.reduce((sum, each) => sum + each.purse, 0)
  // Held against the gold the game began with: a total other than 250 there is gold-totals' finding.
  const dealt = context.traffic.firstRemaining.get(context.game.number) ?? GoldTotal
  if (missing.length === 0 && total !== dealt) {
    context.fail({ what: `the purses in the summary add up to ${total}, not the ${dealt} the game began with`, got: escaped(summary, 120), spec: Requirements.goldTotal })
  }
  context.note(`${standings.length} players in the summary; ${total} nuggets in all`)
  return standings
}

/** How long a server may take to exit after its game over. */
const exitMs = 10_000

export const serverExit: ServerCheck<"server-exit", "game-over"> = {
  name: "server-exit",
  title: "after the game over the server exits",
  needs: ["game-over"],
  deadlineMs: (answerMs) => Math.max(exitMs, answerMs) + 2000,
  run: (context) =>
    Effect.gen(function*() {
      const { clients, game } = context
      if (!clients.gameEnded) return yield* notRun("the game never ended")
      const started = yield* Clock.currentTimeMillis
      const deadline = Math.max(context.answerMs, exitMs)
      if (game.launched !== undefined) {
        // The checker started it: its exit is known, not guessed from the network.
        const ended = yield* Deferred.await(game.launched.exit).pipe(Effect.timeoutOption(deadline))
        if (ended._tag === "Some") return context.note(`it exited (${exitWords(ended.value)}) ${Math.max(0, Math.round(ended.value.at - started))} ms after this check began`)
        return context.fail({ what: `${deadline / 1000} s after the game ended, the server still runs`, got: "its process had not ended", spec: Requirements.gameOver })
      }
      const late = yield* clients.open("spectator")
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
