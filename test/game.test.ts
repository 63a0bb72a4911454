// The core's rules, transition by transition (about 420 lines): one file, since every part plays on the same map with the same few helpers.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { applyKey, endGame } from "../src/core/game.js"
import { addPlayer, addSpectator, sanitizeName } from "../src/core/join.js"
import { type Envelope, type GameState, standings, type Transition } from "../src/core/state.js"
import { parseMap, RoomSpot } from "../src/core/map.js"
import { quitText, refusalText, summaryText } from "../src/protocol/dialect.js"
import { cell, emptyGame, loadMap, placePlayer, pressKeys, renderView, seededGame } from "./support.js"

const map = loadMap("main.txt")

/** A join the game accepts (where it drops the player is drawn from the game state's own generator). */
const joined = (state: GameState, client: string, name: string): Transition => Either.getOrThrow(addPlayer(state, client, name))
/** The typed error an effect fails with; throws if it succeeds. */
const failure = <E>(effect: Effect.Effect<unknown, E>): E => Effect.runSync(Effect.flip(effect))
const step = (effect: Effect.Effect<Transition, unknown>): Transition => Effect.runSync(effect as Effect.Effect<Transition>)
const notices = (out: ReadonlyArray<Envelope>, to: string) => out.filter((e) => e.to === to).map((e) => e.notice)

describe("gold", () => {
  it("is 10..30 piles of at least one nugget, 250 in all, on distinct room spots", () => {
    const pileCounts = new Set<number>()
    for (let seed = 0; seed < 200; seed++) {
      const game = seededGame(map, seed)
      const piles = [...game.gold]
      pileCounts.add(piles.length)
      expect(piles.length).toBeGreaterThanOrEqual(10)
      expect(piles.length).toBeLessThanOrEqual(30)
      expect(piles.every(([, nuggets]) => nuggets >= 1)).toBe(true)
      expect(piles.reduce((sum, [, nuggets]) => sum + nuggets, 0)).toBe(250)
      expect(piles.every(([spot]) => map.cells[spot] === RoomSpot)).toBe(true)
      expect(game.goldRemaining).toBe(250)
    }
    // Both ends of the range occur: the count is uniform over [10, 30], not stuck.
    expect(pileCounts.has(10) && pileCounts.has(30)).toBe(true)
  })

  it("is the same for the same seed and differs for another", () => {
    expect([...seededGame(map, 42).gold]).toEqual([...seededGame(map, 42).gold])
    expect([...seededGame(map, 42).gold]).not.toEqual([...seededGame(map, 43).gold])
  })
})

describe("joining", () => {
  it("hands out letters A..Z in order, each on an empty room spot, and tells the newcomer first", () => {
    let state = seededGame(map, 7)
    /** Players already in the game: not sent a DISPLAY, sent one. */
    const told = [0, 0]
    for (let i = 0; i < 26; i++) {
      const { notices: out, state: next } = joined(state, `c${i}`, `player ${i}`)
      const me = next.players[i]!
      expect(me.letter).toBe("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i])
      expect(map.cells[me.position]).toBe(RoomSpot)
      expect(state.gold.has(me.position)).toBe(false)
      expect(state.players.some((p) => p.position === me.position)).toBe(false)
      expect(notices(out, `c${i}`).map((n) => n._tag)).toEqual(["Ok", "Grid", "Gold", "Display"])
      expect(notices(out, `c${i}`)[2]).toEqual({ _tag: "Gold", collected: 0, purse: 0, remaining: 250 })
      // Everyone already in the game who sees the newcomer's spot gets a fresh DISPLAY; no one else anything.
      for (let j = 0; j < i; j++) {
        const sees = renderView(next, j) !== renderView(state, j)
        expect(sees).toBe(next.sight.visibleFrom(next.players[j]!.position).includes(me.position))
        expect(notices(out, `c${j}`)).toEqual(sees ? [{ _tag: "Display" }] : [])
        told[sees ? 1 : 0]! += 1
      }
      state = next
    }
    // Both happen: the rule was put to the test.
    expect(told[0]).toBeGreaterThan(0)
    expect(told[1]).toBeGreaterThan(0)
    expect(failure(addPlayer(state, "late", "Zed"))._tag).toBe("GameFull")
  })

  it("never gives a letter again once a player quit", () => {
    let state = seededGame(map, 1)
    state = joined(state, "a", "Ann").state
    state = step(applyKey(state, "a", "Q")).state
    const { notices: out, state: next } = joined(state, "b", "Bob")
    expect(notices(out, "b")[0]).toEqual({ _tag: "Ok", letter: "B" })
    expect(next.players.map((p) => [p.letter, p.active])).toEqual([["A", false], ["B", true]])
  })

  it("answers a second PLAY from the same client as the first, changing nothing: its answer was lost", () => {
    let state = joined(seededGame(map, 1), "a", "Ann").state
    state = pressKeys(state, "a", "hhhh")
    const again = joined(state, "a", "Ann again")
    expect(again.state).toBe(state)
    expect(again.changes.cells).toEqual([])
    expect(again.notices).toEqual([
      { to: "a", viewer: 0, notice: { _tag: "Ok", letter: "A" } },
      { to: "a", viewer: 0, notice: { _tag: "Grid", rows: 21, cols: 79 } },
      { to: "a", viewer: 0, notice: { _tag: "Gold", collected: 0, purse: state.players[0]!.purse, remaining: 250 - state.players[0]!.purse } },
      { to: "a", viewer: 0, notice: { _tag: "Display" } }
    ])
    const watching = step(addSpectator(state, "s")).state
    expect(failure(addPlayer(watching, "s", "Sam"))._tag).toBe("AlreadyJoined")
    expect(refusalText(failure(addSpectator(state, "a")))).toBe("you are already playing as A")
  })

  it("refuses an empty or all-blank name", () => {
    const state = seededGame(map, 1)
    expect(failure(addPlayer(state, "a", ""))._tag).toBe("EmptyName")
    expect(failure(addPlayer(state, "a", " \t "))._tag).toBe("EmptyName")
  })

  it("truncates names to 50 chars and replaces chars neither graphic nor blank", () => {
    expect(sanitizeName("x".repeat(80))).toBe("x".repeat(50))
    expect(sanitizeName("a\u0007b\nc d\te")).toBe("a_b_c d\te")
    expect(sanitizeName("Zoë 🙂")).toBe("Zo_ _")
    expect(joined(seededGame(map, 1), "a", "\u001b[31mred").state.players[0]!.name).toBe("_[31mred")
  })
})

describe("the spectator", () => {
  it("gets GRID, GOLD 0 0 r and DISPLAY, and replaces an earlier spectator who is told to quit", () => {
    const game = seededGame(map, 1)
    const first = step(addSpectator(game, "s1"))
    expect(notices(first.notices, "s1").map((n) => n._tag)).toEqual(["Grid", "Gold", "Display"])
    const second = step(addSpectator(first.state, "s2"))
    expect(notices(second.notices, "s1")).toEqual([
      { _tag: "Quit", reason: "SpectatorReplaced" }
    ])
    expect(second.state.spectator).toBe("s2")
  })

  it("can only quit", () => {
    const state = step(addSpectator(seededGame(map, 1), "s")).state
    expect(failure(applyKey(state, "s", "h"))._tag).toBe("UnknownKeystroke")
    const quit = step(applyKey(state, "s", "Q"))
    expect(quit.notices).toEqual([{ to: "s", viewer: "spectator", notice: { _tag: "Quit", reason: "SpectatorQuit" } }])
    expect(quit.state.spectator).toBeUndefined()
  })

  it("sees the whole map with every player and pile", () => {
    let state = placePlayer(emptyGame(map), "a", "Ann", cell(map, 13, 10))
    state = { ...state, gold: new Map([[cell(map, 2, 5), 3]]), goldRemaining: 3 }
    state = step(addSpectator(state, "s")).state
    const view = renderView(state, "spectator").split("\n")
    expect(view[13]![10]).toBe("A")
    expect(view[2]![5]).toBe("*")
    expect(view[0]).toBe(map.cols > 0 ? "  +----------+" + " ".repeat(map.cols - 14) : "")
  })
})

describe("keys", () => {
  const base = placePlayer(
    { ...emptyGame(map), gold: new Map([[cell(map, 13, 12), 5], [cell(map, 13, 14), 7]]), goldRemaining: 12 },
    "a",
    "Ann",
    cell(map, 13, 10)
  )

  it("h l j k y u b n move one step onto a spot", () => {
    const middle = placePlayer(emptyGame(map), "a", "Ann", cell(map, 14, 10))
    const moves: Array<[string, number, number]> = [
      ["h", 14, 9], ["l", 14, 11], ["j", 15, 10], ["k", 13, 10], ["y", 13, 9], ["u", 13, 11], ["b", 15, 9], ["n", 15, 11]
    ]
    for (const [key, row, col] of moves) {
      expect(pressKeys(middle, "a", key).players[0]!.position).toBe(cell(map, row, col))
    }
  })

  it("does not move into a wall, and then sends the mover alone its view as it was: every key is answered", () => {
    let atWall = placePlayer(emptyGame(map), "a", "Ann", cell(map, 13, 6))
    atWall = placePlayer(atWall, "b", "Bob", cell(map, 13, 8))
    atWall = step(addSpectator(atWall, "s")).state
    const { changes, notices: out, state } = step(applyKey(atWall, "a", "h"))
    expect(state).toBe(atWall)
    expect(changes.cells).toEqual([])
    expect(out).toEqual([{ to: "a", viewer: 0, notice: { _tag: "Display" } }])
  })

  it("moving onto gold collects the whole pile and tells everyone", () => {
    let state = placePlayer(base, "b", "Bob", cell(map, 17, 8))
    state = step(addSpectator(state, "s")).state
    const { notices: out, state: next } = step(applyKey(state, "a", "l"))
    expect(next.players[0]!.position).toBe(cell(map, 13, 11))
    const collect = step(applyKey(next, "a", "l"))
    expect(collect.state.players[0]!.purse).toBe(5)
    expect(collect.state.goldRemaining).toBe(7)
    expect(collect.state.gold.has(cell(map, 13, 12))).toBe(false)
    expect(notices(collect.notices, "a")).toEqual([{ _tag: "Gold", collected: 5, purse: 5, remaining: 7 }, { _tag: "Display" }])
    expect(notices(collect.notices, "b")).toEqual([{ _tag: "Gold", collected: 0, purse: 0, remaining: 7 }, { _tag: "Display" }])
    expect(notices(collect.notices, "s")).toEqual([{ _tag: "Gold", collected: 0, purse: 0, remaining: 7 }, { _tag: "Display" }])
    expect(out.map((e) => e.to)).toEqual(["a", "b", "s"])
  })

  it("capitals run as far as possible, collecting on the way, and the last pile ends the game", () => {
    const state = step(addSpectator(base, "s")).state
    const { notices: out, state: next } = step(applyKey(state, "a", "L"))
    expect(next.players[0]!.position).toBe(cell(map, 13, 38))
    expect(next.players[0]!.purse).toBe(12)
    expect(next.over).toBe(true)
    expect(notices(out, "a")).toEqual([
      { _tag: "Gold", collected: 12, purse: 12, remaining: 0 },
      { _tag: "Display" },
      { _tag: "GameOver" }
    ])
    expect(notices(out, "s").at(-1)).toEqual({ _tag: "GameOver" })
    expect(failure(applyKey(next, "a", "h"))._tag).toBe("GameIsOver")
  })

  it("moving onto another player swaps the two", () => {
    const state = placePlayer(base, "b", "Bob", cell(map, 13, 11))
    const next = pressKeys(state, "a", "l")
    expect(next.players[0]!.position).toBe(cell(map, 13, 11))
    expect(next.players[1]!.position).toBe(cell(map, 13, 10))
    // The swapped player now knows what it sees from its new spot.
    expect(next.players[1]!.known[cell(map, 13, 6)]).toBe(1)
  })

  it("a capital run pushes through players, each moved back one step", () => {
    const state = placePlayer(placePlayer(emptyGame(map), "a", "Ann", cell(map, 14, 6)), "b", "Bob", cell(map, 14, 8))
    const next = pressKeys(state, "a", "L")
    expect(next.players[0]!.position).toBe(cell(map, 14, 38))
    expect(next.players[1]!.position).toBe(cell(map, 14, 7))
  })

  it("a player walks along passages and through doors", () => {
    const state = placePlayer(emptyGame(map), "a", "Ann", cell(map, 16, 36))
    const next = pressKeys(state, "a", "LK")
    expect(next.players[0]!.position).toBe(cell(map, 7, 48))
  })

  it("Q quits: the player leaves the map, keeps its purse for the summary", () => {
    const rich = pressKeys(placePlayer(base, "b", "Bob", cell(map, 17, 8)), "a", "ll")
    const { notices: out, state } = step(applyKey(rich, "a", "Q"))
    expect(notices(out, "a")).toEqual([{ _tag: "Quit", reason: "PlayerQuit" }])
    expect(notices(out, "b")).toEqual([{ _tag: "Display" }])
    expect(renderView(state, 1)).not.toContain("A")
    expect(summaryText(standings(state))).toBe("A     5 Ann\nB     0 Bob\n")
    expect(failure(applyKey(state, "a", "h"))._tag).toBe("NotJoined")
  })

  it("any other key is an unknown keystroke", () => {
    for (const key of ["x", "H1", "", " ", "q", "\u0003", "é"]) {
      const refusal = failure(applyKey(base, "a", key))
      expect(refusal).toMatchObject({ _tag: "UnknownKeystroke" })
      expect(refusalText(refusal)).toBe("unknown keystroke")
    }
  })

  it("a key from a client that never joined is refused", () => {
    expect(failure(applyKey(base, "stranger", "h"))._tag).toBe("NotJoined")
  })
})

describe("change sets: what each transition says it changed", () => {
  const at = (row: number, col: number) => cell(map, row, col)
  const two = placePlayer(placePlayer(emptyGame(map), "a", "Ann", at(14, 10)), "b", "Bob", at(14, 12))

  it("a step: the cells left and entered, and the mover's path", () => {
    const { changes } = step(applyKey(two, "a", "k"))
    expect(changes.cells).toEqual([at(14, 10), at(13, 10)])
    expect(changes.walks).toEqual([{ player: 0, path: [at(14, 10), at(13, 10)] }])
    expect(changes.joined).toEqual([])
    expect(changes.left).toEqual([])
  })

  it("gold taken on a run, and the run's whole path", () => {
    const alone = placePlayer(emptyGame(map), "a", "Ann", at(14, 10))
    const rich = { ...alone, gold: new Map([[at(14, 13), 4], [at(14, 15), 6]]), goldRemaining: 10 }
    const { changes, state } = step(applyKey(rich, "a", "L"))
    expect(changes.walks).toEqual([{ player: 0, path: Array.from({ length: 29 }, (_, k) => at(14, 10 + k)) }])
    expect(changes.cells).toEqual([at(14, 10), at(14, 13), at(14, 15), at(14, 38)])
    expect(state.goldRemaining).toBe(0)
  })

  it("a swap: both players' walks, and where each landed", () => {
    const { changes } = step(applyKey(two, "a", "L"))
    const end = changes.walks[0]!.path.at(-1)!
    expect(changes.walks).toEqual([
      { player: 0, path: Array.from({ length: end - at(14, 10) + 1 }, (_, k) => at(14, 10) + k) },
      { player: 1, path: [at(14, 12), at(14, 11)] }
    ])
    expect(changes.cells).toEqual([at(14, 10), at(14, 12), at(14, 11), end])
  })

  it("players arriving and leaving", () => {
    const arrival = joined(two, "c", "Cy")
    const position = arrival.state.players[2]!.position
    expect(arrival.changes).toMatchObject({ cells: [position], joined: [2], left: [], walks: [] })
    const leaving = step(applyKey(two, "b", "Q"))
    expect(leaving.changes).toMatchObject({ cells: [at(14, 12)], joined: [], left: [1], walks: [] })
  })

  it("nothing for a move into a wall, a spectator, or a refusal", () => {
    const wall = step(applyKey(placePlayer(emptyGame(map), "a", "Ann", at(13, 6)), "a", "h"))
    expect(wall.changes.cells).toEqual([])
    expect(step(addSpectator(two, "s")).changes.cells).toEqual([])
  })
})

describe("the steal variant", () => {
  const at = (row: number, col: number) => cell(map, row, col)
  const withPurses = (state: GameState, purses: ReadonlyArray<number>): GameState => ({
    ...state,
    players: state.players.map((player, index) => ({ ...player, purse: purses[index]! }))
  })
  const game = (variant: "classic" | "steal", purses: ReadonlyArray<number>) => {
    let state: GameState = { ...emptyGame(map), rules: { ...emptyGame(map).rules, variant } }
    state = placePlayer(state, "a", "Ann", at(14, 10))
    state = placePlayer(state, "b", "Bob", at(14, 11))
    state = placePlayer(state, "c", "Cy", at(14, 13))
    state = step(addSpectator(state, "s")).state
    return withPurses(state, purses)
  }

  it("a swap takes 10% of the other's purse, rounded down; thief and victim get GOLD, everyone a DISPLAY", () => {
    const { changes, notices: out, state } = step(applyKey(game("steal", [3, 57, 0]), "a", "l"))
    expect(state.players.map((p) => p.purse)).toEqual([8, 52, 0])
    expect(changes.thefts).toEqual([{ thief: 0, victim: 1, nuggets: 5 }])
    expect(notices(out, "a")).toEqual([{ _tag: "Gold", collected: 5, purse: 8, remaining: 0 }, { _tag: "Display" }])
    expect(notices(out, "b")).toEqual([{ _tag: "Gold", collected: 0, purse: 52, remaining: 0 }, { _tag: "Display" }])
    expect(notices(out, "c")).toEqual([{ _tag: "Display" }])
    expect(notices(out, "s")).toEqual([{ _tag: "Display" }])
  })

  it("takes nothing from a purse under 10, and then sends no GOLD", () => {
    const { changes, notices: out, state } = step(applyKey(game("steal", [0, 9, 0]), "a", "l"))
    expect(state.players.map((p) => p.purse)).toEqual([0, 9, 0])
    expect(changes.thefts).toEqual([])
    expect(out.every((envelope) => envelope.notice._tag === "Display")).toBe(true)
  })

  it("a run that swaps twice steals each time", () => {
    const { changes, state } = step(applyKey(game("steal", [0, 100, 40]), "a", "L"))
    expect(changes.thefts).toEqual([{ thief: 0, victim: 1, nuggets: 10 }, { thief: 0, victim: 2, nuggets: 4 }])
    expect(state.players.map((p) => p.purse)).toEqual([14, 90, 36])
  })

  it("is off in the classic rules: a swap moves no gold", () => {
    const { changes, state } = step(applyKey(game("classic", [0, 100, 40]), "a", "L"))
    expect(changes.thefts).toEqual([])
    expect(state.players.map((p) => p.purse)).toEqual([0, 100, 40])
  })

  it("the protocol words every reason to quit", () => {
    expect(Object.values(quitText).every((text) => text.length > 0)).toBe(true)
  })
})

describe("when datagrams are lost", () => {
  it("SPECTATE again from the spectator: GRID, GOLD and DISPLAY again, and no QUIT to itself", () => {
    const state = step(addSpectator(seededGame(map, 1), "s")).state
    const again = step(addSpectator(state, "s"))
    expect(again.state).toBe(state)
    expect(again.notices.map((envelope) => [envelope.to, envelope.notice._tag])).toEqual([
      ["s", "Grid"],
      ["s", "Gold"],
      ["s", "Display"]
    ])
  })

  it("Ctrl-L asks for OK (a player's), GOLD and DISPLAY again, for a player and for the spectator", () => {
    let state = joined(seededGame(map, 1), "a", "Ann").state
    state = step(addSpectator(state, "s")).state
    const player = step(applyKey(state, "a", "\f"))
    expect(player.state).toBe(state)
    expect(player.notices).toEqual([
      { to: "a", viewer: 0, notice: { _tag: "Ok", letter: "A" } },
      { to: "a", viewer: 0, notice: { _tag: "Gold", collected: 0, purse: 0, remaining: 250 } },
      { to: "a", viewer: 0, notice: { _tag: "Display" } }
    ])
    expect(step(applyKey(state, "s", "\f")).notices.map((envelope) => envelope.notice._tag)).toEqual(["Gold", "Display"])
  })
})

describe("a game no one can finish", () => {
  it("ends when every letter has been used and the last player quits: GAMEOVER to the spectator", () => {
    let state = step(addSpectator(seededGame(map, 3), "s")).state
    for (let i = 0; i < 26; i++) state = joined(state, `c${i}`, `p${i}`).state
    for (let i = 0; i < 25; i++) state = step(applyKey(state, `c${i}`, "Q")).state
    expect(state.over).toBe(false)
    const last = step(applyKey(state, "c25", "Q"))
    expect(last.state.over).toBe(true)
    expect(notices(last.notices, "s")).toEqual([{ _tag: "Display" }, { _tag: "GameOver" }])
    expect(notices(last.notices, "c25")).toEqual([{ _tag: "Quit", reason: "PlayerQuit" }])
  })

  it("ends early when whoever runs it ends it: GAMEOVER to every player still in and the spectator", () => {
    let state = step(addSpectator(seededGame(map, 3), "s")).state
    state = joined(state, "a", "Ann").state
    state = joined(state, "b", "Bob").state
    state = step(applyKey(state, "b", "Q")).state
    const ended = endGame(state)
    expect(ended.state.over).toBe(true)
    expect(notices(ended.notices, "a")).toEqual([{ _tag: "GameOver" }])
    expect(notices(ended.notices, "s")).toEqual([{ _tag: "GameOver" }])
    expect(notices(ended.notices, "b")).toEqual([])
  })

  it("goes on while letters are left: someone may still join", () => {
    let state = joined(seededGame(map, 3), "a", "Ann").state
    state = step(applyKey(state, "a", "Q")).state
    expect(state.over).toBe(false)
  })
})

describe("maps with few room spots", () => {
  const roomOf = (spots: number) => {
    return Either.getOrThrow(parseMap(`+${"-".repeat(spots)}+\n|${".".repeat(spots)}|\n+${"-".repeat(spots)}+\n`))
  }

  it("get fewer piles, leaving a spot for each of 26 players, and always 250 nuggets", () => {
    for (const [spots, most] of [[30, 4], [40, 14], [56, 30], [20, 1], [1, 1]] as const) {
      for (let seed = 0; seed < 30; seed++) {
        const game = seededGame(roomOf(spots), seed)
        expect(game.gold.size, `${spots} spots`).toBeLessThanOrEqual(most)
        expect(game.gold.size).toBeGreaterThanOrEqual(Math.min(10, most))
        expect([...game.gold.values()].reduce((sum, nuggets) => sum + nuggets, 0)).toBe(250)
      }
    }
  })

  it("refuse a player with a clear reason when no room spot is free", () => {
    let state = seededGame(roomOf(3), 1)
    state = joined(state, "a", "Ann").state
    state = joined(state, "b", "Bob").state
    const refusal = failure(addPlayer(state, "c", "Cy"))
    expect(refusal._tag).toBe("NoRoomLeft")
    expect(refusalText(refusal)).toMatch(/no empty room spot/)
  })
})
