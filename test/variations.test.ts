import { describe, expect, it } from "vitest"
import { type ClientState, type ClientUpdate, receive, startClient } from "../src/client/state.js"
import { Note } from "../src/client/status.js"
import { defaultTimings } from "../src/client/timings.js"
import { update } from "../src/client/update.js"
import { type GameReport, newReport, readDatagram } from "../src/protocol/reader.js"
import { standingsOf } from "../src/protocol/summary.js"
import { latin1 } from "../src/protocol/transcript.js"
import { habits, refusals, type Sighting, type Variation, variations } from "../src/protocol/variations.js"
import { datagrams, serverCaptures } from "./peers/fixtures.js"

const joined = ["OK A", "GRID 3 5", "GOLD 0 0 250"].reduce(readDatagram, newReport("player"))
const readAll = (start: GameReport, datagrams: ReadonlyArray<string>) => datagrams.reduce(readDatagram, start)
/** What a report knows of the game, leaving out the bookkeeping of the latest message; a summary by its standings. */
const known = ({ ending, grid, joined, letter, position, purse, remaining, view }: GameReport) => ({
  ending: ending?._tag === "GameOver" ? { _tag: "GameOver", standings: standingsOf(ending.summary) } : ending,
  grid,
  joined,
  letter,
  position,
  purse,
  remaining,
  view
})
const startOf = (variation: Variation) =>
  variation.start === "new" ? newReport("player") : variation.start === "spectator" ? newReport("spectator") : joined
const where = (seen: ReadonlyArray<Sighting>) =>
  seen.length === 0 ? "seen nowhere yet" : "seen from " + seen.map((each) => each.implementation + (each.source ? ` (${each.source})` : "")).join("; ")

describe("variations our readers accept", () => {
  it.each(variations.map((each) => [each.rule, where(each.seen), each] as const))("%s: %s", (_, __, variation) => {
    const start = startOf(variation)
    const read = readAll(start, variation.example)
    expect(known(read)).toEqual(known(readAll(start, variation.means)))
    // Each one changes something: a variation that reads as nothing would pass vacuously.
    expect({ ...known(read), note: read.note }).not.toEqual({ ...known(start), note: start.note })
    if (variation.note !== undefined) expect(read.note).toEqual(variation.note)
  })
})

describe("what our readers refuse", () => {
  const seen = readDatagram(joined, "DISPLAY\n+---+\n|@.*|\n+---+\n")
  it.each(refusals.map((each) => [each.rule, each] as const))("%s", (_, refusal) => {
    const read = readDatagram(seen, refusal.example)
    expect(read.note).toEqual(refusal.note)
    expect(known(read)).toEqual(known(seen))
  })
})

/**
 * Where a variation is seen from a server we keep a capture of, the capture shows it: what
 * the server sent to the player (client 0) and the spectator (client 1), as text.
 */
const evidence: Record<string, (player: ReadonlyArray<string>, spectator: ReadonlyArray<string>) => boolean> = {
  "A DISPLAY whose last row does not end with a newline": (player) => player.some((each) => /^DISPLAY\n[^]*[^\n]$/.test(each)),
  "A DISPLAY whose rows each begin with a newline instead of ending with one": (player) => player.some((each) => each.startsWith("DISPLAY\n\n")),
  "A DISPLAY before OK and GRID: drawn at its own size until GRID comes": (player) => player[0]!.startsWith("DISPLAY"),
  "DISPLAY \\n: a space between the type word and the newline": (player) => player.some((each) => each.startsWith("DISPLAY \n")),
  "GRID written columns first (GRID 5 3 for a 3x5 map), before OK: the DISPLAY's own shape wins": (player) => {
    const [rows, cols] = player[0]!.split(" ").slice(1).map(Number)
    const display = player.find((each) => each.startsWith("DISPLAY"))!.split("\n").slice(1, -1)
    return player[0]!.startsWith("GRID") && display.length === cols && display[0]!.length === rows
  },
  "A DISPLAY larger than GRID by blank padding: rows padded with spaces, and a blank last row": (player) => {
    const [rows, cols] = player.find((each) => each.startsWith("GRID"))!.split(" ").slice(1).map(Number)
    const display = player.find((each) => each.startsWith("DISPLAY"))!.split("\n").slice(1, -1)
    return display.length > rows! && display[0]!.length > cols! && display.at(-1)!.trim() === ""
  },
  "OK with a lower-case letter: OK a is player A": (player) => player.some((each) => /^OK [a-z]$/.test(each)),
  "The player's own spot not drawn at all (gold, or another player, drawn over it): a view with no position": (player) =>
    player.some((each) => each.startsWith("DISPLAY") && !each.includes("@")),
  "A one-line message ending with a newline": (player, spectator) =>
    [...player, ...spectator].some((each) => /^(GOLD|QUIT|ERROR|NO)[^\n]*\n$/.test(each) && !each.startsWith("QUIT GAME OVER")),
  "A message type followed by a stop: ERROR.": (player, spectator) => [...player, ...spectator].some((each) => each.startsWith("ERROR.")),
  "More than one space, or a tab, between numbers": (player) => player.some((each) => /^(GRID|GOLD) .*( {2}|\t)|^(GRID|GOLD) {2}/.test(each)),
  "GOLD 0 -1 r to the spectator: it has no purse": (_, spectator) => spectator.some((each) => /^GOLD 0 -1 \d+$/.test(each)),
  "The 2021 dialect's game over: QUIT GAME OVER: and the summary": (player) => player.some((each) => each.startsWith("QUIT GAME OVER:\n")),
  "QUIT GAME OVER: \\n, a space before the newline, and QUIT GAME OVER\\n, no colon": (player) =>
    player.some((each) => /^QUIT GAME OVER(: \n|\n)/.test(each)),
  "Summary lines with tabs: L\\tpurse name, L \\tpurse \\tname, L\\tpurse\\tname": (player) =>
    player.some((each) => /^QUIT GAME OVER[^]*\n[A-Z] ?\t/.test(each)),
  "Summary lines written name, letter, purse": (player) => player.some((each) => /^GAMEOVER\n\S+ +[A-Z] +\d+/.test(each)),
  "ERROR where the spec says NO (the 2021 dialect)": (player, spectator) => [...player, ...spectator].some((each) => each.startsWith("ERROR")),
  "A bare QUIT, with no reason": (player, spectator) => [...player, ...spectator].includes("QUIT"),
  "GOLDSTEAL n p r L, one server's news of a theft: our purse p, r left, a note of who took what": (player) =>
    player.some((each) => each.startsWith("GOLDSTEAL"))
}

const captureOf = (implementation: string) => serverCaptures.find((each) => each.peer === implementation.replace("/", "+"))!

describe("each variation is in the capture of each server we say it was captured from", () => {
  const captured = variations.flatMap((variation) =>
    variation.seen.filter((sighting) => sighting.captured).map((sighting) => [variation.rule, sighting.implementation] as const)
  )
  it.each(captured)("%s: %s", (rule, implementation) => {
    const capture = captureOf(implementation)
    expect(capture, `no capture of ${implementation}'s server`).toBeDefined()
    const shows = evidence[rule]
    expect(shows, "no test of the capture for this variation").toBeDefined()
    const [player, spectator] = [0, 1].map((client) => datagrams(capture.transcript, "server", client).map(latin1))
    expect(shows!(player!, spectator!)).toBe(true)
  })
})

// ---- What servers do rather than write: played by the client's state machine ----

const window = { columns: 80, rows: 24 }
const display = "DISPLAY\n+---+\n|.@.|\n+---+\n"
const playing = ["OK A", "GRID 3 5", "GOLD 0 0 250", display].reduce(
  (state, data) => update(state, { _tag: "Datagram", data }, 0).state,
  startClient({ _tag: "Player", name: "Alice" }, "peer:1", window, 0, defaultTimings).state
)
const run = (state: ClientState, events: ReadonlyArray<readonly [number, Parameters<typeof update>[1]]>): Array<ClientUpdate> => {
  const updates: Array<ClientUpdate> = []
  for (const [at, event] of events) updates.push(update(updates.at(-1)?.state ?? state, event, at))
  return updates
}
const tick = { _tag: "Tick" } as const
const key = (sequence: string) => ({ _tag: "Key", sequence }) as const

describe("what servers do that our client copes with", () => {
  const silence = habits.find((each) => each.rule.startsWith("No answer at all to an unknown key"))!
  const walls = habits.find((each) => each.rule.startsWith("No answer to a move into a wall"))!

  it(`${silence.rule}: ${where(silence.seen)}`, () => {
    // Idle for 30 s after a key no server knows, and a Ctrl-L: nothing ever comes, and all is well.
    const updates = run(playing, [[1000, key("x")], [1050, key("\f")], ...Array.from({ length: 300 }, (_, i) => [1100 + i * 100, tick] as const)])
    expect(updates.flatMap((each) => each.send)).toEqual([{ _tag: "Key", key: "x" }, { _tag: "Key", key: "\f" }])
    expect(updates.every((each) => each.state.alert === undefined)).toBe(true)
  })

  const crash = habits.find((each) => each.rule.startsWith("A crash at a key other than Q from the spectator"))!
  it(`${crash.rule}: ${where(crash.seen)}`, () => {
    const watch = (display: string) =>
      ["GRID 3 5", "GOLD 0 0 250", display].reduce(
        (state, data) => update(state, { _tag: "Datagram", data }, 0).state,
        startClient({ _tag: "Spectator" }, "peer:1", window, 0, defaultTimings).state
      )
    const ticks = Array.from({ length: 300 }, (_, i) => [(i + 1) * 100, tick] as const)
    // The spectator sends what its user types and nothing else: with no player in, or with one.
    expect(run(watch("DISPLAY\n+---+\n|...|\n+---+\n"), ticks).flatMap((each) => each.send)).toEqual([])
    expect(run(watch("DISPLAY\n+---+\n|.A.|\n+---+\n"), ticks).flatMap((each) => each.send)).toEqual([])
  })

  it(`${walls.rule}: ${where(walls.seen)}`, () => {
    // Up is the wall: no answer, and none needed. Right is floor: a move there must be answered.
    const blocked = run(playing, [[1000, key("k")], [4000, tick], [4100, tick]])
    expect(blocked.map((each) => each.state.alert)).toEqual([undefined, undefined, undefined])
    const lost = run(playing, [[1000, key("l")], [4000, tick], [4100, tick]])
    expect(lost.at(-1)!.state.alert).toEqual(Note.NotAnswering())
    expect(receive(lost.at(-1)!.state, display).alert).toBeUndefined()
  })
})
