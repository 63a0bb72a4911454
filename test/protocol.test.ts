import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { EmptyName, GameFull, UnknownKeystroke } from "../src/core/refusals.js"
import { gameOverMessage, malformedMessage, refusalMessage } from "../src/protocol/dialect.js"
import {
  decodeClientMessage,
  decodeServerMessage,
  encodeClientMessage,
  encodeServerMessage,
  type ServerMessage
} from "../src/protocol/messages.js"
import { noticeMessage } from "../src/protocol/notices.js"

const bytes = (text: string) => new TextEncoder().encode(text)
const client = (text: string | Uint8Array) => decodeClientMessage(typeof text === "string" ? bytes(text) : text)
const server = (text: string) => decodeServerMessage(text)
const failure = <A, E>(either: Either.Either<A, E>): E => Either.getOrThrow(Either.flip(either))

describe("messages from clients", () => {
  it("PLAY takes everything after the first space as the name", () => {
    expect(client("PLAY Alice Smith ")).toEqual(Either.right({ _tag: "Play", name: "Alice Smith " }))
    expect(client("PLAY")).toEqual(Either.right({ _tag: "Play", name: "" }))
    expect(client("PLAY\nBob")).toEqual(Either.right({ _tag: "Play", name: "Bob" }))
  })

  it("SPECTATE and KEY k", () => {
    expect(client("SPECTATE")).toEqual(Either.right({ _tag: "Spectate" }))
    expect(client("KEY h")).toEqual(Either.right({ _tag: "Key", key: "h" }))
    expect(client("KEY é")).toEqual(Either.right({ _tag: "Key", key: "é" }))
  })

  it("every one-byte keystroke decodes the same on the fast path as on the general one", () => {
    for (let code = 0x20; code < 0x7f; code++) {
      const key = String.fromCharCode(code)
      // A trailing newline takes the general path.
      expect(client(`KEY ${key}`)).toEqual(client(`KEY ${key}\n`))
      expect(client(`KEY ${key}`)).toEqual(Either.right({ _tag: "Key", key }))
    }
  })

  it("a trailing line end is not part of the message", () => {
    expect(client("KEY Q\r\n")).toEqual(Either.right({ _tag: "Key", key: "Q" }))
    expect(client("PLAY Ann\n")).toEqual(Either.right({ _tag: "Play", name: "Ann" }))
  })

  it("a KEY without exactly one keystroke is malformed, with a reason", () => {
    expect(failure(client("KEY"))).toMatchObject({ kind: "malformed", reason: "KEY takes exactly one keystroke, got none" })
    expect(failure(client("KEY "))).toMatchObject({ kind: "malformed" })
    expect(failure(client("KEY hj"))).toMatchObject({ kind: "malformed", reason: "KEY takes exactly one keystroke, got \"hj\"" })
  })

  it("anything else is not a client message: empty, lower case, binary, server messages", () => {
    for (const odd of [new Uint8Array(0), bytes("play x"), bytes("key h"), Uint8Array.of(0xff, 0x00, 0x41), bytes("NO x")]) {
      expect(failure(client(odd)).kind).toBe("unknown")
    }
    expect(failure(client(bytes("\u0000\u0001"))).reason).toBe("unknown message type \"\\u0000\\u0001\"")
  })

  it("encodes what it decodes", () => {
    for (const text of ["PLAY Alice", "SPECTATE", "KEY L"]) {
      expect(encodeClientMessage(Either.getOrThrow(client(text)))).toBe(text)
    }
  })
})

describe("messages from servers", () => {
  const all: ReadonlyArray<ServerMessage> = [
    { _tag: "Ok", letter: "C" },
    { _tag: "No", reason: "unknown keystroke" },
    { _tag: "Error", reason: "bad" },
    { _tag: "Grid", rows: 21, cols: 79 },
    { _tag: "Gold", collected: 5, purse: 12, remaining: 238 },
    { _tag: "Display", grid: "+-+\n|.|\n+-+\n" },
    { _tag: "Quit", reason: "Thanks for playing!" },
    { _tag: "GameOver", summary: "A    12 Alice\nB     0 Bob\n" }
  ]

  it("round-trips every message", () => {
    for (const message of all) {
      expect(server(encodeServerMessage(message))).toEqual(Either.right(message))
    }
  })

  it("writes the spec's forms, and the dialects choose the later CS50 ones", () => {
    expect(encodeServerMessage({ _tag: "No", reason: "" })).toBe("NO")
    expect(encodeServerMessage({ _tag: "GameOver", summary: "A 1 x\n" })).toBe("GAMEOVER\nA 1 x\n")
    expect(encodeServerMessage(gameOverMessage("2021", "A 1 x\n"))).toBe("QUIT GAME OVER:\nA 1 x\n")
    expect(server(encodeServerMessage(gameOverMessage("2021", "A 1 x\n")))).toEqual(
      Either.right({ _tag: "GameOver", summary: "A 1 x\n" })
    )
    expect(encodeServerMessage(malformedMessage("2019", "bad"))).toBe("NO bad")
    expect(encodeServerMessage(malformedMessage("2021", "bad"))).toBe("ERROR bad")
  })

  it("refuses as each dialect does: NO in the spec's; ERROR, and QUIT for a full game, in the later one", () => {
    const full = new GameFull({ maxPlayers: 26 })
    const key = new UnknownKeystroke({ key: "x" })
    expect(encodeServerMessage(refusalMessage("2019", full))).toBe("NO Sorry - the game is full; no more than 26 players can join.")
    expect(encodeServerMessage(refusalMessage("2021", full))).toBe("QUIT Game is full: no more players can join.")
    expect(encodeServerMessage(refusalMessage("2019", key))).toBe("NO unknown keystroke")
    expect(encodeServerMessage(refusalMessage("2021", key))).toBe("ERROR unknown keystroke")
    for (const dialect of ["2019", "2021"] as const) {
      expect(refusalMessage(dialect, new EmptyName())._tag).toBe("Quit")
    }
  })

  it("says a core notice as the server sends it: QUIT in the protocol's words, the others as they are", () => {
    expect(encodeServerMessage(noticeMessage({ _tag: "Quit", reason: "PlayerQuit" }))).toBe("QUIT Thanks for playing!")
    expect(encodeServerMessage(noticeMessage({ _tag: "Quit", reason: "ShutDown" }))).toBe("QUIT server shutting down")
    expect(encodeServerMessage(noticeMessage({ _tag: "Ok", letter: "C" }))).toBe("OK C")
    expect(encodeServerMessage(noticeMessage({ _tag: "Grid", rows: 21, cols: 79 }))).toBe("GRID 21 79")
    expect(encodeServerMessage(noticeMessage({ _tag: "Gold", collected: 3, purse: 10, remaining: 200 }))).toBe("GOLD 3 10 200")
  })

  it("rejects a GRID no map can have", () => {
    for (const grid of ["GRID 0 5", "GRID 5", "GRID -1 5", "GRID a b", "GRID 300 300", "GRID 5 5 5"]) {
      expect(failure(server(grid)).kind).toBe("malformed")
    }
    expect(server("GRID 254 256")).toEqual(Either.right({ _tag: "Grid", rows: 254, cols: 256 }))
  })

  it("rejects a bad OK or GOLD, and a DISPLAY without its grid", () => {
    for (const text of ["OK", "OK AB", "OK 1", "OK @", "GOLD 1 2", "GOLD x 1 2", "GOLD 1 2 -3", "DISPLAY", "DISPLAY x\ny"]) {
      expect(failure(server(text)).kind, text).toBe("malformed")
    }
  })

  it("reads what real servers write for what the spec writes otherwise", () => {
    expect(server("OK a")).toEqual(Either.right({ _tag: "Ok", letter: "A" }))
    expect(server("GOLD 0 -1 250")).toEqual(Either.right({ _tag: "Gold", collected: 0, purse: -1, remaining: 250 }))
    expect(server("DISPLAY \n+-+\n")).toEqual(Either.right({ _tag: "Display", grid: "+-+\n" }))
    expect(server("DISPLAY +-+ |@| +-+ ")).toEqual(Either.right({ _tag: "Display", grid: "+-+ |@| +-+ " }))
    expect(server("QUIT GAME OVER: \nA 1 x\n")).toEqual(Either.right({ _tag: "GameOver", summary: "A 1 x\n" }))
    expect(server("QUIT GAME OVER\nA\t1\tx\n")).toEqual(Either.right({ _tag: "GameOver", summary: "A\t1\tx\n" }))
  })

  it("names an unknown message type", () => {
    expect(failure(server("HELLO there"))).toMatchObject({ kind: "unknown", reason: "unknown message type \"HELLO\"" })
  })
})
