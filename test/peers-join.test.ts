import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { joinGame } from "../src/client/session.js"
import { defaultTimings } from "../src/client/timings.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
import { latin1 } from "../src/protocol/transcript.js"
import { fakeServer, fakeTerminal } from "./client/fakes.js"
import { openScriptServer } from "../src/kit/check-client/script-server.js"
import { datagrams, serverCaptures } from "./peers/fixtures.js"

const join = (port: number, name: string) =>
  Effect.gen(function*() {
    const terminal = yield* fakeTerminal({ columns: 60, rows: 20 })
    const request = { _tag: "Player" as const, name }
    const client = yield* Effect.fork(joinGame({ host: "127.0.0.1", port, request, timings: defaultTimings }, terminal.layer).pipe(Effect.provide(nodeUdpLayer)))
    return { client, terminal }
  })

const text = (lines: ReadonlyArray<string>) => lines.map((line) => line.trimEnd()).join("\n")

describe("the real join, against each C server's captured game played back over UDP", () => {
  for (const capture of serverCaptures) {
    it.scoped(`${capture.peer}: plays to the game over and its standings`, () =>
      Effect.gen(function*() {
        const server = yield* fakeServer
        const { client, terminal } = yield* join(server.port, "player-1")
        expect(yield* server.receive).toBe("PLAY player-1")
        // On the way: the status line with our letter, and the map with us in it.
        const playing = yield* Effect.fork(terminal.frameWhere((lines) => lines[0]!.startsWith("Player A has") && lines.slice(1).some((line) => /[|.#]@|@[|.#]/.test(line))))
        yield* server.send(...datagrams(capture.transcript, "server", 0).map(latin1))
        yield* Fiber.join(playing)
        const standings = yield* terminal.frameWhere((lines) => text(lines).includes("GAME OVER"))
        expect(text(standings)).toMatch(/1\. A +\d+ player-1 +<- winner, you/)
        yield* TestClock.adjust("5 seconds")
        expect(yield* Fiber.join(client)).toMatchObject({ _tag: "GameOver", you: "A" })
      }))
  }
})

describe("the real join, against a server that makes a new player for every PLAY", () => {
  /** Everything the client sends up to its KEY Q, which ends the session. */
  const untilQuit = (server: Effect.Effect.Success<typeof fakeServer>) =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      for (;;) {
        const next = yield* server.receive
        seen.push(next)
        if (next === "KEY Q") return seen
      }
    })

  it.scoped("350 ms each way: it joins once", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const { client, terminal } = yield* join(server.port, "Alice")
      expect(yield* server.receive).toBe("PLAY Alice")
      // The answer is 700 ms on its way; any PLAY sent meanwhile would be a second player.
      yield* TestClock.adjust("700 millis")
      yield* server.send("OK A", "GRID 3 5", "GOLD 0 0 250", "DISPLAY\n+---+\n|.@*|\n+---+")
      yield* terminal.frameWhere((lines) => lines[0]!.startsWith("Player A"))
      yield* TestClock.adjust("4 seconds")
      yield* terminal.press("Q")
      const sent = yield* untilQuit(server)
      expect(sent.filter((each) => each.startsWith("PLAY"))).toEqual([])
      yield* server.send("QUIT Thanks for playing!")
      expect(yield* Fiber.join(client)).toMatchObject({ _tag: "Quit", reason: "Thanks for playing!" })
    }))

  it.scoped("the first OK lost: it joins once, and plays without its letter, sending only what the user typed", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const { client, terminal } = yield* join(server.port, "Alice")
      expect(yield* server.receive).toBe("PLAY Alice")
      yield* server.send("GRID 3 5", "GOLD 0 0 250", "DISPLAY\n+---+\n|.@*|\n+---+")
      yield* terminal.frameWhere((lines) => lines[2]?.startsWith("|.@*|") === true && lines[0]!.startsWith("Player ? has 0 nuggets"))
      // Past every retry PLAY could have had.
      yield* TestClock.adjust("10 seconds")
      yield* terminal.press("l", "Q")
      const sent = yield* untilQuit(server)
      expect(sent).toEqual(["KEY l", "KEY Q"])
      yield* server.send("QUIT Thanks for playing!")
      expect(yield* Fiber.join(client)).toEqual({ _tag: "Quit", reason: "Thanks for playing!" })
    }))
})

describe("the real join, against a server that reads KEY with sscanf(\"%s %s\")", () => {
  /**
   * A server that reads a KEY as one C server does: `sscanf(message, "%s %s", type, key)`.
   * A key that is white space (Ctrl-L is a form feed) leaves the last key in its buffer,
   * which is then played again: a client that sends a key its user never typed moves the
   * player twice.
   */
  const sscanfServer = Effect.gen(function*() {
    const room = ["+---+", "|...|", "|...|", "|...|", "|...|", "+---+"]
    let row = 1
    let key = ""
    let moves = 0
    const view = () => "DISPLAY\n" + room.map((line, index) => (index === row ? "|.@.|" : line) + "\n").join("")
    const server = yield* openScriptServer((text, reply) => {
      const [type, typed] = text.split(/[ \t\n\v\f\r]+/).filter((word) => word !== "")
      if (type === "PLAY") return reply("OK A", `GRID ${room.length} 5`, "GOLD 0 0 250", view())
      if (type !== "KEY") return
      key = typed?.[0] ?? key
      if (key === "Q") return reply("QUIT Thanks for playing!")
      if (key === "j" && room[row + 1] === "|...|") {
        row++
        moves++
      }
      reply(view())
    }).pipe(Effect.provide(nodeUdpLayer))
    return { server, moves: () => moves }
  })

  it.scoped("a client that types nothing sends nothing after its join; a player who typed j moved once", () =>
    Effect.gen(function*() {
      const { moves, server } = yield* sscanfServer
      const { client, terminal } = yield* join(server.port, "Alice")
      yield* terminal.frameWhere((lines) => lines[2]?.startsWith("|.@.|") === true)
      // Half a minute with no key typed: long past any ask a client might make of its own accord.
      yield* TestClock.adjust("30 seconds")
      yield* terminal.press("j")
      yield* terminal.frameWhere((lines) => lines[3]?.startsWith("|.@.|") === true)
      yield* TestClock.adjust("30 seconds")
      yield* terminal.press("Q")
      // The socket delivers in order: once Q is in, everything sent before it is too.
      yield* server.next("KEY Q", 3000, (text) => text === "KEY Q")
      expect(server.heard.map((each) => each.text)).toEqual(["PLAY Alice", "KEY j", "KEY Q"])
      expect(moves()).toBe(1)
      expect((yield* terminal.frame)[3]!.startsWith("|.@.|")).toBe(true)
      expect(yield* Fiber.join(client)).toMatchObject({ _tag: "Quit" })
    }))
})
