/**
 * The core's cost per keystroke: one move by one of 26 players, then the DISPLAY of every
 * viewer it owes one (of 26 players + spectator) brought up to date, as the server does it.
 */
import { Effect, Either, Random } from "effect"
import { readFileSync } from "node:fs"
import { applyKey, newGame } from "../../src/core/game.js"
import { addPlayer, addSpectator } from "../../src/core/join.js"
import type { GameState } from "../../src/core/state.js"
import { parseMap } from "../../src/core/map.js"
import { DisplayBuffers } from "../../src/server/views.js"
import { round, summarize } from "./stats.js"

const moveKeys = "hjklyubnhjklyubnhjklyubnHJKLYUBN"

export const benchCore = (mapFile: string, keystrokes = 20_000, seed = 1) => {
  const map = Either.getOrThrow(parseMap(readFileSync(mapFile, "utf8")))
  const run = <A>(effect: Effect.Effect<A, unknown>) => Effect.runSync(Effect.withRandom(effect, Random.make(seed)))
  const fullGame = () => {
    let state: GameState = run(newGame(map))
    for (let i = 0; i < 26; i++) state = run(addPlayer(state, `p${i}`, `Player ${i}`)).state
    state = run(addSpectator(state, "spectator")).state
    const views = new DisplayBuffers(state)
    for (const viewer of [...state.players.map((p) => p.index), "spectator" as const]) views.display(viewer)
    return { state, views }
  }
  let { state, views } = fullGame()

  const rng = Random.make(seed)
  const inputs = Array.from({ length: keystrokes }, () => ({
    player: Effect.runSync(rng.nextIntBetween(0, 26)),
    key: moveKeys[Effect.runSync(rng.nextIntBetween(0, moveKeys.length))]!
  }))
  const samples: Array<number> = []
  let bytes = 0
  let displays = 0
  const heapBefore = process.memoryUsage().heapUsed
  let heapPeak = heapBefore
  for (let i = 0; i < inputs.length; i++) {
    const { player, key } = inputs[i]!
    const started = process.hrtime.bigint()
    const step = Either.getOrThrow(applyKey(state, `p${player}`, key))
    state = step.state
    views.advance(step)
    for (const envelope of step.notices) {
      if (envelope.notice._tag !== "Display") continue
      displays++
      bytes += views.display(envelope.viewer).length
    }
    samples.push(Number(process.hrtime.bigint() - started) / 1000)
    if (i % 1000 === 0) heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)
    // A finished game restarts, so the run measures play, not a frozen board.
    if (state.over) ({ state, views } = fullGame())
  }
  const warm = summarize(samples.slice(Math.floor(samples.length / 10)))
  return {
    map: `${mapFile.split("/").pop()} (${map.rows}x${map.cols})`,
    keystrokes,
    medianMicros: round(warm.median, 2),
    p99Micros: round(warm.p99, 2),
    displaysPerKey: round(displays / keystrokes, 2),
    displayBytesPerKey: Math.round(bytes / keystrokes),
    heapUsedMB: round(heapPeak / 2 ** 20, 1)
  }
}
