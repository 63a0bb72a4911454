import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, TestClock } from "effect"
import { MaxNameLength } from "../src/core/constants.js"
import { joinGame, type JoinOptions } from "../src/client/session.js"
import type { JoinRequest } from "../src/client/state.js"
import { defaultTimings } from "../src/client/timings.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
import { fakeServer, fakeTerminal } from "./client/fakes.js"

/** The real join program against a server played by the test, on a terminal that records frames. */
const setup = (request: JoinRequest, size = { columns: 40, rows: 10 }) =>
  Effect.gen(function*() {
    const server = yield* fakeServer
    const terminal = yield* fakeTerminal(size)
    const options: JoinOptions = {
      host: "127.0.0.1",
      port: server.port,
      request,
      timings: { ...defaultTimings, quitTimeout: 200 }
    }
    const client = yield* Effect.fork(joinGame(options, terminal.layer).pipe(Effect.provide(nodeUdpLayer)))
    return { server, terminal, client }
  })

/** A frame as text: lines without their padding, joined by spaces. */
const text = (lines: ReadonlyArray<string>) => lines.map((line) => line.trimEnd()).join(" ")

const alice: JoinRequest = { _tag: "Player", name: "Alice" }
const grid = "+---+\n|.@*|\n+---+\n"

describe("joinGame", () => {
  it.scopedLive("plays: joins, draws status line and map, sends keys, and leaves on QUIT", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice)
      expect(yield* server.receive).toBe("PLAY Alice")
      yield* server.send("OK A", "GRID 3 5", "GOLD 0 0 250", `DISPLAY\n${grid}`)
      const frame = yield* terminal.frameWhere((lines) => lines[3]?.startsWith("+---+") === true)
      expect(frame.slice(0, 4).map((line) => line.trimEnd())).toEqual([
        "Player A: 0 nuggets, 250 unclaimed.",
        "+---+",
        "|.@*|",
        "+---+"
      ])
      yield* terminal.press("l")
      expect(yield* server.receiveKey).toBe("KEY l")
      yield* server.send("GOLD 10 10 240", "DISPLAY\n+---+\n|..@|\n+---+\n")
      // The purse on the status line, in fewer words beside the note at 40 columns.
      yield* terminal.frameWhere((lines) => lines[2]?.startsWith("|..@|") === true && lines[0]!.startsWith("A: 10, 240 left  GOLD received: 10"))
      yield* terminal.press("Q")
      expect(yield* server.receiveKey).toBe("KEY Q")
      yield* server.send("QUIT Thanks for playing!")
      expect(yield* Fiber.join(client)).toMatchObject({ _tag: "Quit", reason: "Thanks for playing!" })
      expect(yield* terminal.closed).toBe(1)
    }))

  // On the test clock: the wait for a QUIT that never comes passes at once.
  it.scoped("leaves after Q even when the server never answers it", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice)
      expect(yield* server.receive).toBe("PLAY Alice")
      yield* server.send("OK A", "GRID 3 5", "GOLD 0 0 250", `DISPLAY\n${grid}`)
      yield* terminal.frameWhere((lines) => lines[2]?.startsWith("|.@*|") === true)
      yield* terminal.press("Q")
      expect(yield* server.receiveKey).toBe("KEY Q")
      // No QUIT comes back: the client's clock moves on past its patience.
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(client)).toMatchObject({ _tag: "UserQuit", how: "no answer" })
      expect(yield* terminal.closed).toBe(1)
    }))

  it.scopedLive("watches as the spectator, shows the final standings until a key, and ends with the summary", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup({ _tag: "Spectator" })
      expect(yield* server.receive).toBe("SPECTATE")
      yield* server.send("GRID 3 5", "GOLD 0 0 7", `DISPLAY\n${grid}`)
      yield* terminal.frameWhere((lines) => lines[0]?.startsWith("Spectator: 7 nuggets unclaimed.") === true)
      yield* server.send("QUIT GAME OVER:\nA 20 Alice\nB 230 Bob\n")
      const standings = yield* terminal.frameWhere((lines) => text(lines).includes("GAME OVER"))
      expect(text(standings)).toContain("1. B 230 Bob  <- winner")
      expect(yield* terminal.closed).toBe(0)
      yield* terminal.press(" ")
      expect(yield* Fiber.join(client)).toEqual({ _tag: "GameOver", summary: "A 20 Alice\nB 230 Bob\n", nuggetsLeft: 0 })
      expect(yield* terminal.closed).toBe(1)
    }))

  // On the test clock: nobody presses a key, and the standings go after their few seconds.
  it.scoped("the final standings go by themselves after a few seconds", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice)
      expect(yield* server.receive).toBe("PLAY Alice")
      yield* server.send("OK A", "GRID 3 5", "GOLD 0 0 250", `DISPLAY\n${grid}`, "GAMEOVER\nA 250 Alice\n")
      const standings = yield* terminal.frameWhere((lines) => text(lines).includes("GAME OVER"))
      expect(text(standings)).toContain("1. A 250 Alice  <- winner, you")
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(client)).toMatchObject({ _tag: "GameOver", you: "A" })
    }))

  it.scopedLive("cuts the name to MaxNameLength characters", () =>
    Effect.gen(function*() {
      const { client, server } = yield* setup({ _tag: "Player", name: "n".repeat(MaxNameLength * 2) })
      expect(yield* server.receive).toBe(`PLAY ${"n".repeat(MaxNameLength)}`)
      yield* Fiber.interrupt(client)
    }))

  it.scopedLive("waits in a small window, and draws the game as soon as it fits", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice, { columns: 4, rows: 10 })
      yield* server.receive
      yield* server.send("OK B", "GRID 3 5", "GOLD 0 0 9", `DISPLAY\n${grid}`)
      yield* terminal.frameWhere((lines) => text(lines).includes("need 5x4, have 4x10"))
      yield* terminal.resize({ columns: 5, rows: 4 })
      const fitted = yield* terminal.frameWhere((lines) => lines[1] === "+---+")
      // Five columns: the status line in its fewest words.
      expect(fitted[0]).toBe("B 0/9")
      yield* terminal.resize({ columns: 40, rows: 3 })
      yield* terminal.frameWhere((lines) => text(lines).includes("need 5x4, have 40x3"))
      yield* Fiber.interrupt(client)
    }))

  it.scopedLive("sends KEY Q and quits at end of input", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice)
      yield* server.receive
      yield* server.send("OK A", "GOLD 0 0 250")
      yield* terminal.frameWhere((lines) => lines[0]?.startsWith("Player A") === true)
      yield* terminal.press("h", "\u001b[A", "\u001bOP", "j")
      expect(yield* server.receiveKey).toBe("KEY h")
      expect(yield* server.receiveKey).toBe("KEY k")
      expect(yield* server.receiveKey).toBe("KEY j")
      yield* terminal.endInput
      expect(yield* server.receiveKey).toBe("KEY Q")
      yield* server.send("QUIT Thanks for playing!")
      expect(yield* Fiber.join(client)).toMatchObject({ _tag: "UserQuit", how: "end of input" })
      expect(yield* terminal.closed).toBe(1)
    }))

  it.scopedLive("sends KEY Q when interrupted (SIGINT, SIGTERM) and restores the terminal", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice)
      yield* server.receive
      yield* server.send("OK A", "GOLD 0 0 250")
      yield* terminal.frameWhere((lines) => lines[0]?.startsWith("Player A") === true)
      yield* Fiber.interrupt(client)
      expect(yield* server.receiveKey).toBe("KEY Q")
      expect(yield* terminal.closed).toBe(1)
    }))

  it.scopedLive("never writes control characters from the network, and notes malformed messages", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice, { columns: 100, rows: 5 })
      yield* server.receive
      yield* server.send("OK A", "GRID 3 5", "GOLD 0 0 250", "DISPLAY\n+\u001b[2J\n|\u0007..|\n+---+\n", "GOLD x")
      const frame = yield* terminal.frameWhere((lines) => lines[0]?.includes("malformed") === true)
      expect(frame.slice(1, 4).map((line) => line.trimEnd())).toEqual(["+?[2J", "|?..|", "+---+"])
      yield* terminal.press("k")
      yield* server.receive
      yield* terminal.frameWhere((lines) => lines[0]?.trimEnd() === "Player A has 0 nuggets (250 nuggets unclaimed).")
      yield* Fiber.interrupt(client)
    }))

  it.scopedLive("ignores a DISPLAY far larger than GRID said (801 rows for 21): the keys typed still go, and the next good DISPLAY is drawn", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice, { columns: 80, rows: 24 })
      /** A 21x79 room with the player at column `at` of its first floor row. */
      const room = (at: number) =>
        Array.from({ length: 21 }, (_, row) =>
          row === 0 || row === 20 ? "+" + "-".repeat(77) + "+" : "|" + (row === 1 ? ".".repeat(at - 1) + "@" + ".".repeat(77 - at) : ".".repeat(77)) + "|")
      const display = (rows: ReadonlyArray<string>) => "DISPLAY\n" + rows.map((row) => row + "\n").join("")
      expect(yield* server.receive).toBe("PLAY Alice")
      yield* server.send("OK A", "GRID 21 79", "GOLD 0 0 250", display(room(1)))
      yield* terminal.frameWhere((lines) => lines[2]?.startsWith("|@.") === true)
      // 801 rows of the room's width: 64 KB, one datagram.
      yield* server.send(display(Array.from({ length: 801 }, (_, row) => (row === 1 ? "|@" : "|.").padEnd(78, ".") + "|")))
      // Noted on the status line, and the room still drawn as it was.
      const noted = yield* terminal.frameWhere((lines) => lines[0]?.includes("DISPLAY is 801x79") === true)
      expect(noted.slice(1, 22).map((line) => line.trimEnd())).toEqual(room(1))
      yield* terminal.press("l")
      expect(yield* server.receiveKey).toBe("KEY l")
      yield* server.send(display(room(2)))
      yield* terminal.frameWhere((lines) => lines[2]?.startsWith("|.@.") === true)
      yield* terminal.press("l")
      expect(yield* server.receiveKey).toBe("KEY l")
      yield* Fiber.interrupt(client)
    }))

  it.scopedLive("stops with a bad GRID during play", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice)
      yield* server.receive
      yield* server.send("OK A", "GRID 99999 99999")
      expect(yield* Fiber.join(client)).toMatchObject({ _tag: "BadGrid" })
      expect(yield* terminal.closed).toBe(yield* terminal.opened)
    }))
})

describe("joinGame, while joining", () => {
  it.scopedLive("shows that it is connecting, then takes NO as a refusal and restores the terminal", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice)
      yield* server.receive
      const waiting = yield* terminal.frameWhere((lines) => lines[0]!.startsWith("connecting to 127.0.0.1:"))
      expect(waiting[0]!.trimEnd()).toBe(`connecting to 127.0.0.1:${server.port}...`)
      yield* server.send("NO Sorry - the game is full")
      expect(yield* Fiber.join(client)).toEqual({ _tag: "Refused", reason: "Sorry - the game is full" })
      expect(yield* terminal.closed).toBe(1)
    }))

  it.scopedLive("stops on a first GRID no map can have", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup({ _tag: "Spectator" })
      yield* server.receive
      yield* server.send("GRID 0 -1")
      expect(yield* Fiber.join(client)).toMatchObject({ _tag: "BadGrid" })
      expect(yield* terminal.closed).toBe(1)
    }))

  // On the test clock: every retry and the final timeout happen as the test moves the time on.
  it.scoped("sends PLAY again while nothing comes back, backing off, and gives up at the answer timeout", () =>
    Effect.gen(function*() {
      const { client, server, terminal } = yield* setup(alice)
      expect(yield* server.receive).toBe("PLAY Alice")
      yield* TestClock.adjust("1 second")
      expect(yield* server.receive).toBe("PLAY Alice")
      yield* TestClock.adjust("2 seconds")
      expect(yield* server.receive).toBe("PLAY Alice")
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(client)).toEqual({ _tag: "NoServer", server: `127.0.0.1:${server.port}`, why: "no answer" })
      expect(yield* terminal.closed).toBe(1)
    }))

  it.scopedLive("reports a host that does not resolve", () =>
    Effect.gen(function*() {
      const terminal = yield* fakeTerminal({ columns: 80, rows: 24 })
      const options: JoinOptions = { host: "no-such-host.invalid", port: 9, request: alice }
      const result = yield* Effect.either(joinGame(options, terminal.layer).pipe(Effect.provide(nodeUdpLayer)))
      expect(result).toEqual(Either.left(expect.objectContaining({ reason: "UnknownHost" })))
      expect(yield* terminal.opened).toBe(0)
    }), 10_000)
})
