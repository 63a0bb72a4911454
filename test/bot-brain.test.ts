import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Random } from "effect"
import { type Brain, decide, hear, newBrain, type Strategy } from "../src/bot/brain.js"
import { applyKey } from "../src/core/game.js"
import { addPlayer } from "../src/core/join.js"
import type { GameState } from "../src/core/state.js"
import { loadMap, renderView, seededGame } from "./support.js"

/** A brain that has joined as A and holds `lines` as its latest DISPLAY. */
const seeing = (strategy: Strategy, lines: ReadonlyArray<string>, brain = newBrain(strategy)): Brain => {
  const joined = brain.report.letter === undefined ? hear(brain, "OK A") : brain
  return hear(joined, "DISPLAY\n" + lines.map((line) => line + "\n").join(""))
}

const keyOf = (brain: Brain, seed = 1) => Effect.runSync(decide(brain, Random.make(seed))).key

const room = [
  "+---------+",
  "|.........|",
  "|.@.....*.|",
  "|.........|",
  "|...*.....|",
  "+---------+"
]

describe("bot brain: greedy", () => {
  it("steps toward the nearest gold by walking distance (diagonals count one)", () => {
    // The gold at (4,4) is 2 steps away, both diagonal; the one at (2,8) is 6.
    expect(keyOf(seeing("greedy", room))).toBe("n")
    const farther = room.map((line, row) => (row === 4 ? "|.........|" : line))
    expect(keyOf(seeing("greedy", farther))).toBe("l")
  })

  it("walks around walls, not through them", () => {
    const lines = [
      "+-----+ +---+",
      "|....@| |.*.|",
      "|.....###...|",
      "+-----+ +---+"
    ]
    // Straight right is a wall; the only shortest way starts down to the doorway.
    expect(keyOf(seeing("greedy", lines))).toBe("n")
  })

  it("explores toward the unknown when it knows of no gold: out through the doorway", () => {
    const lines = [
      "           ",
      "+-----+    ",
      "|.@...#    ",
      "|.....|    ",
      "+-----+    "
    ]
    // Every shortest way to the doorway starts with one of these.
    expect(keyOf(seeing("greedy", lines))).toMatch(/^[lun]$/)
  })

  it("remembers gold that went out of sight, and forgets gold seen to be gone", () => {
    const first = [
      "+-----+",
      "|*....|",
      "|.....|",
      "+--#--+",
      "   #   ",
      "   #   ",
      "   @   "
    ]
    let brain = seeing("greedy", first)
    expect(keyOf(brain)).toBe("k")
    brain = Effect.runSync(decide(brain, Random.make(1))).brain
    // Down the passage the room is memory only: the gold is no longer drawn, but may be there.
    const outOfSight = first.map((line, row) => (row === 1 ? "|.....|" : row === 6 ? "       " : row === 5 ? "   @   " : line))
    brain = seeing("greedy", outOfSight, brain)
    expect(keyOf(brain)).toBe("k")
    // Inside the room it would see the gold; it is not there, so the bot goes exploring instead.
    const gone = [
      "+-----+",
      "|.....|",
      "|..@..|",
      "+--#--+",
      "   #   ",
      "   #   ",
      "   #   "
    ]
    brain = Effect.runSync(decide(seeing("greedy", gone, brain), Random.make(1))).brain
    expect(brain.memory!.gold.size).toBe(0)
  })

  it("with nothing left to explore, steps onto the blanks beside it, those by a wall first: a room some servers never show from its doorway", () => {
    const lines = [
      "+-----+",
      "|.....|",
      "+--#--+",
      "   @   ",
      "       "
    ]
    let brain = seeing("greedy", lines)
    const keys: Array<string> = []
    for (let i = 0; i < 5; i++) {
      // Each key bumps into rock: the same view comes back, the bot where it was.
      const decision = Effect.runSync(decide(brain, Random.make(1)))
      keys.push(decision.key!)
      brain = decision.brain
    }
    expect(keys.slice(0, 2).sort()).toEqual(["h", "l"])
    expect(keys.slice(2).sort()).toEqual(["b", "j", "n"])
  })

  it("never presses a key that does not move: a whole game alone on each map, every key moves", () => {
    for (const [file, seed] of [["small.txt", 4], ["main.txt", 9]] as const) {
      let state: GameState = seededGame(loadMap(file), seed)
      state = Either.getOrThrow(addPlayer(state, "bot", "bot")).state
      let brain = hear(newBrain("greedy"), "OK A")
      const rng = Random.make(seed)
      let keys = 0
      while (!state.over) {
        brain = hear(brain, "DISPLAY\n" + renderView(state, 0))
        const decision = Effect.runSync(decide(brain, rng))
        brain = decision.brain
        const step = Either.getOrThrow(applyKey(state, "bot", decision.key!))
        const at = JSON.stringify(brain.report.position)
        expect(step.changes.walks.length, `key ${decision.key} at ${at} on ${file} did not move`).toBeGreaterThan(0)
        state = step.state
        expect(++keys).toBeLessThan(3000)
      }
      expect(state.players[0]!.purse).toBe(250)
    }
  })

  it("26 greedy bots share a game on the example map and collect all the gold", () => {
    const seed = 5
    let state: GameState = seededGame(loadMap("main.txt"), seed)
    const brains: Array<Brain> = []
    for (let i = 0; i < 26; i++) {
      state = Either.getOrThrow(addPlayer(state, `c${i}`, `bot-${i}`)).state
      brains.push(hear(newBrain("greedy"), `OK ${state.players[i]!.letter}`))
    }
    const rng = Random.make(seed)
    for (let turn = 0; !state.over; turn++) {
      expect(turn).toBeLessThan(20_000)
      const i = turn % 26
      const brain = hear(brains[i]!, "DISPLAY\n" + renderView(state, i))
      const decision = Effect.runSync(decide(brain, rng))
      brains[i] = decision.brain
      const step = Either.getOrThrow(applyKey(state, `c${i}`, decision.key!))
      expect(step.changes.walks.length).toBeGreaterThan(0)
      state = step.state
    }
    expect(state.players.reduce((sum, player) => sum + player.purse, 0)).toBe(250)
  })
})

describe("bot brain: random", () => {
  const corner = [
    "+----",
    "|@.A.",
    "|.#..",
    "|*...",
    "+----"
  ]

  it("presses only move keys, and only ones that move", () => {
    const brain = seeing("random", corner)
    const pressed = new Set(Array.from({ length: 200 }, (_, seed) => keyOf(brain, seed)))
    expect([...pressed].sort()).toEqual(["j", "l", "n"])
  })

  it("chooses the same keys with the same seed, and others with another seed", () => {
    const brain = seeing("random", room)
    const play = (seed: number) => {
      const rng = Random.make(seed)
      return Array.from({ length: 40 }, () => Effect.runSync(decide(brain, rng)).key).join("")
    }
    expect(play(7)).toBe(play(7))
    expect(play(7)).not.toBe(play(8))
    expect(play(7)).toMatch(/^[hjklyubn]{40}$/)
  })
})

describe("bot brain: what the server says", () => {
  it("keeps letter and purse, and ends on QUIT, GAMEOVER, or a refusal of its PLAY in either dialect", () => {
    let brain = newBrain("greedy")
    expect(hear(brain, "NO Sorry - the game is full").report.ending).toEqual({
      _tag: "Refused",
      reason: "Sorry - the game is full"
    })
    // The later CS50 servers turn a 27th player away with QUIT: still a refusal, not a quit.
    expect(hear(brain, "QUIT Game is full: no more players can join.").report.ending?._tag).toBe("Refused")
    expect(hear(brain, "ERROR full").report.ending?._tag).toBe("Refused")
    brain = hear(brain, "OK C")
    brain = hear(brain, "GOLD 5 12 200")
    expect([brain.report.letter, brain.report.purse, brain.report.remaining]).toEqual(["C", 12, 200])
    // A NO once playing is about a key, not the end.
    expect(hear(brain, "NO unknown keystroke").report.ending).toBeUndefined()
    expect(hear(brain, "QUIT server shutting down").report.ending?._tag).toBe("Quit")
    const over = hear(brain, "GAMEOVER\nC 250 bot-3\n")
    expect(over.report.ending).toEqual({ _tag: "GameOver", summary: "C 250 bot-3\n" })
    expect(hear(brain, "QUIT GAME OVER:\nC 250 bot-3\n").report.ending?._tag).toBe("GameOver")
    expect(hear(over, "GOLD 0 99 0").report.purse).toBe(12)
  })

  it("has no key to press before it has a DISPLAY, or after the end", () => {
    expect(keyOf(newBrain("random"))).toBeUndefined()
    const ended = hear(seeing("random", room), "QUIT")
    expect(keyOf(ended)).toBeUndefined()
  })
  it("presses a move key when its view does not show it (gold or another player drawn over it), and plays from its letter drawn for @", () => {
    const hidden = room.map((line) => line.replace("@", "*"))
    for (const strategy of ["random", "greedy"] as const) {
      for (let seed = 1; seed <= 8; seed++) expect(keyOf(seeing(strategy, hidden), seed)).toMatch(/^[hjklyubn]$/)
    }
    // Its own letter where @ would be: the same key as from @.
    expect(keyOf(seeing("greedy", room.map((line) => line.replace("@", "A"))))).toBe(keyOf(seeing("greedy", room)))
  })
})
