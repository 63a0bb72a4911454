import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Random } from "effect"
import { readFileSync } from "node:fs"
import { hear, newBrain } from "../src/bot/brain.js"
import { type ClientState, startClient } from "../src/client/state.js"
import { defaultTimings } from "../src/client/timings.js"
import { update } from "../src/client/update.js"
import { gridSize } from "../src/client/viewport.js"
import { parseMap } from "../src/core/map.js"
import { decodeClientMessage, decodeServerMessage } from "../src/protocol/messages.js"
import { ownStanding } from "../src/protocol/summary.js"
import { entryBytes, latin1 } from "../src/protocol/transcript.js"
import { makeLiveGame, receiveNow } from "../src/server/liveGame.js"
import { clientCaptures, datagrams, serverCaptures } from "./peers/fixtures.js"

const window = { columns: 100, rows: 30 }
const isDisplay = (data: Uint8Array) => /^DISPLAY\s/.test(latin1(data.subarray(0, 8)))
/** What a DISPLAY draws, in order, without the blanks and line ends between (which servers lay out variously). */
const drawn = (text: string) => text.replace(/^DISPLAY/, "").replace(/\s/g, "")

/**
 * Whether a view is the map the capture's server played, seen in part: each gridpoint
 * blank, the map's own character, or an occupant (`@`, gold, a letter) on a spot; blank
 * beyond the map's edge (some servers pad with blank columns and rows).
 */
const onTheMap = (view: ReadonlyArray<string>, map: ReadonlyArray<string>) =>
  view.every((row, r) =>
    Array.from(row).every((char, c) => {
      const under = map[r]?.[c] ?? " "
      return char === " " || char === under || (/^[@*A-Z]$/.test(char) && (under === "." || under === "#"))
    })
  )
const summaryOf = (data: ReadonlyArray<Uint8Array>) => {
  for (const each of data) {
    const message = decodeServerMessage(latin1(each))
    if (Either.isRight(message) && message.right._tag === "GameOver") return message.right.summary
  }
  throw new Error("the capture has no game over")
}

describe.each(serverCaptures.map((capture) => [capture.peer, capture] as const))("a game against %s's server", (_, capture) => {
  const map = readFileSync(`maps/${capture.transcript.header.map}`, "utf8").split("\n")
  const player = datagrams(capture.transcript, "server", 0)
  const spectator = datagrams(capture.transcript, "server", 1)
  const summary = summaryOf(player)

  it.each([["the player", player, "player-1"], ["the spectator", spectator, undefined]] as const)(
    "our client, as %s, reads every DISPLAY and plays to the game over",
    (_, received, name) => {
      const request = name === undefined ? { _tag: "Spectator" as const } : { _tag: "Player" as const, name }
      let state: ClientState = startClient(request, "peer:1", window, 0, defaultTimings).state
      let displays = 0
      for (const [index, data] of received.entries()) {
        state = update(state, { _tag: "Datagram", data: latin1(data) }, index).state
        if (!isDisplay(data) || state.exit) continue
        displays++
        // The DISPLAY was taken as it came, in full: no note, and it is the view now, all it
        // draws in its place on the map, at the map's size (or GRID's, when a server pads it).
        expect(state.report.note, `DISPLAY #${displays}`).toBeUndefined()
        expect(drawn(state.report.view!.join(""))).toBe(drawn(latin1(data)))
        expect(onTheMap(state.report.view!, map), state.report.view!.join("\n")).toBe(true)
        expect(state.report.view).toHaveLength(gridSize(state)!.rows)
        expect(gridSize(state)!.rows).toBe(map.filter((row) => row !== "").length)
      }
      expect(displays).toBeGreaterThan(name === undefined ? 5 : 20)
      expect(state.report.letter).toBe(name === undefined ? undefined : "A")
      expect(state.exit).toMatchObject({ _tag: "GameOver", summary })
    }
  )

  it("a bot hears the same game to its end, and finds its own line in the summary", () => {
    const brain = player.reduce((each, data) => hear(each, data), newBrain("greedy"))
    expect(brain.report.ending).toEqual({ _tag: "GameOver", summary })
    expect(brain.report.letter).toBe("A")
    const own = ownStanding(summary, { letter: brain.report.letter, name: "player-1" })
    expect(own).toMatchObject({ letter: "A", name: "player-1" })
    expect(own!.purse).toBeGreaterThan(200)
  })
})

describe.each(clientCaptures.map((capture) => [capture.peer, capture] as const))("%s's client, as captured", (_, capture) => {
  const dialect = /--compat cs50-2021/.test(capture.transcript.header.source) ? "2021" : "2019"
  const sent = capture.transcript.entries.filter((entry) => entry.from === "client")

  it("sends only messages our server reads", () => {
    for (const entry of sent) expect(Either.isRight(decodeClientMessage(entryBytes(entry))), entry.data).toBe(true)
    expect(new Set(sent.map((entry) => entry.data.split(" ")[0]))).toEqual(new Set(["PLAY", "SPECTATE", "KEY"]))
  })

  it.effect("is let in, moves, watches and quits on our server, as on the capture's", () =>
    Effect.gen(function*() {
      const host = yield* makeLiveGame({ map: Either.getOrThrow(parseMap(readFileSync("maps/small.txt", "utf8"))), dialect })
      const inbox = new Map<number, Array<string>>()
      for (const entry of sent) {
        const box = inbox.get(entry.client) ?? []
        inbox.set(entry.client, box)
        yield* receiveNow(host, { id: `c${entry.client}`, keepsBytes: false, send: (data) => box.push(typeof data === "string" ? data : latin1(data)) }, entryBytes(entry))
      }
      const [player = [], quitter = [], spectator = []] = [0, 1, 2].map((client) => inbox.get(client))
      expect(player.slice(0, 3)).toEqual(["OK A", "GRID 10 29", "GOLD 0 0 250"])
      expect(player.filter((text) => text.startsWith("DISPLAY")).length).toBeGreaterThan(10)
      // The one key no server knows, x, is the one refusal (a client that sends only the keys it knows never sends it).
      const typedX = sent.filter((entry) => entry.client === 0 && entry.data === "KEY x").length
      expect(typedX).toBeLessThanOrEqual(1)
      const refusal = dialect === "2019" ? "NO unknown keystroke" : "ERROR unknown keystroke"
      expect(player.filter((text) => /^(NO|ERROR) /.test(text))).toEqual(typedX === 1 ? [refusal] : [])
      expect(quitter[0]).toBe("OK B")
      expect(quitter.at(-1)).toBe("QUIT Thanks for playing!")
      expect(spectator[0]).toBe("GRID 10 29")
      expect(host.state().players.map((each) => each.name)).toEqual(["Carol", "Dave", "bot-1"])
    }).pipe(Effect.scoped, Effect.withRandom(Random.make(7))))
})
