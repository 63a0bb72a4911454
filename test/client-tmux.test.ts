import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { MoveDirections } from "../src/core/constants.js"
import { scriptCommand } from "./cli/process.js"
import { fakeServer } from "./client/fakes.js"
import { nuggets, type Pane, projectDir, realServer, tmuxPane } from "./client/tmux.js"

/**
 * The real client in a real terminal (tmux), against the real server and against a server
 * played by the test. Each launch costs a node start-up, so the scenarios are few and long.
 */

const mainMap = readFileSync(`${projectDir}maps/main.txt`, "utf8").split("\n")
const mapRows = mainMap.filter((row) => row.length > 0).length
const mapCols = Math.max(...mainMap.map((row) => row.length))

const size = { columns: 80, rows: 24 }

const statusLine = /^Player A has 0 nuggets \(\d+ nuggets unclaimed\)\.$/

/** Where the player's `@` is on the screen. */
const where = (lines: ReadonlyArray<string>) => {
  const row = lines.findIndex((line) => line.includes("@"))
  return row < 0 ? undefined : { row, col: lines[row]!.indexOf("@") }
}

/** A move the screen shows to be possible (an empty spot, a passage, gold or a player), and where it leads. */
const openMove = (lines: ReadonlyArray<string>) => {
  const at = where(lines)!
  for (const [key, [dRow, dCol]] of Object.entries(MoveDirections)) {
    const target = { row: at.row + dRow, col: at.col + dCol }
    if (/[.#*A-Z]/.test(lines[target.row]?.[target.col] ?? " ")) return { key, target }
  }
  throw new Error(`no open move from ${JSON.stringify(at)}`)
}

/** Eve, playing on a one-row map served by the test, drawn and waiting for keys. */
const eveOnATinyMap = Effect.gen(function*() {
  const server = yield* fakeServer
  const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(server.port), "Eve"], size)
  expect(yield* server.receive).toBe("PLAY Eve")
  yield* server.send("OK A", "GRID 1 3", "GOLD 0 0 250", "DISPLAY\n.@.\n")
  yield* pane.waitFor((lines) => lines[1] === ".@.")
  return { pane, server }
})

describe.concurrent("the client in tmux", () => {
  it.scopedLive("against the real server: status line, map, a move, small window, quit, terminal restored", () =>
    Effect.gen(function*() {
      const server = yield* realServer(["maps/main.txt", "7"])
      const pane = yield* tmuxPane([...nuggets, "join", "localhost", String(server.port), "Alice"], {
        columns: 100,
        rows: 30
      })
      const first = yield* pane.waitFor((lines) => statusLine.test(lines[0]!) && where(lines) !== undefined)
      expect(yield* pane.display("#{alternate_on} #{cursor_flag}")).toBe("1 0")
      // The map fills lines 2..NR+1 with map and occupant characters only.
      const grid = first.slice(1, 1 + mapRows)
      expect(grid.every((line) => /^[ +\-|.#*@A-Z]*$/.test(line) && line.length <= mapCols)).toBe(true)
      expect(first.slice(1 + mapRows).every((line) => line.trim() === "")).toBe(true)

      const move = openMove(first)
      yield* pane.sendKeys(move.key)
      yield* pane.waitFor((lines) => lines[move.target.row]![move.target.col] === "@")

      yield* pane.sendKeys("x")
      yield* pane.waitFor((lines) => /^Player A has .*\.  unknown keystroke$/.test(lines[0]!))

      yield* pane.resize(60, 10)
      const small = yield* pane.waitFor((lines) => lines.join(" ").includes("too small"))
      expect(small.join(" ")).toContain(`${mapCols} columns wide and ${mapRows + 1} rows tall; it is 60 x 10.`)
      yield* pane.resize(100, 30)
      yield* pane.waitFor((lines) => /^Player A has \d+ nuggets/.test(lines[0]!) && where(lines) !== undefined)

      yield* pane.sendKeys("Q")
      const after = yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      expect(after[0]).toMatch(/^Thanks for playing! You collected \d+ nuggets?\.$/)
      expect(after.slice(1, 3)).toEqual(["exit=0", "tty=restored"])
      expect(yield* pane.display("#{alternate_on} #{cursor_flag}")).toBe("0 1")
    }), 60_000)

  it.scopedLive("against a hostile server: no control characters reach the terminal, bad GRID exits non-zero", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(server.port)], size)
      expect(yield* server.receive).toBe("SPECTATE")
      yield* server.send(
        "GRID 2 12",
        "GOLD 0 0 3",
        "DISPLAY\n+\u001b]2;owned\u0007+\n|\u001b[2J......|\n",
        "NO \u001b[31mred\u0007"
      )
      const screen = yield* pane.waitFor((lines) => lines[0]!.includes("red"))
      expect(screen.slice(0, 3)).toEqual([
        "Spectator: 3 nuggets unclaimed.  ?[31mred?",
        "+?]2;owned?+",
        "|?[2J......|"
      ])
      expect(yield* pane.display("#{pane_title}")).not.toContain("owned")
      // Once playing, a GRID that changes the size or makes no sense is only noted.
      yield* server.send("GRID 40 100")
      yield* pane.waitFor((lines) => lines[0]!.includes("GRID 40x100 differs from the first (2x12)"))
      yield* server.send("GRID 0 0")
      const noted = yield* pane.waitFor((lines) => lines[0]!.includes("malformed message from server: GRID 0x0"))
      expect(noted[1]).toBe("+?]2;owned?+")
      yield* server.send("QUIT bye")
      yield* pane.waitFor((lines) => lines.some((line) => line.startsWith("tty=")))

      // A first GRID no map can have ends the session at once.
      const second = yield* fakeServer
      const badGrid = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(second.port)], size)
      expect(yield* second.receive).toBe("SPECTATE")
      yield* second.send("GRID 0 0")
      const after = yield* badGrid.waitFor((lines) => lines.some((line) => line.startsWith("tty=")))
      expect(after.join("\n")).toMatch(/^nuggets: the server sent a grid no map can have \(.*\)\.\nexit=1\ntty=restored/)
      expect(yield* badGrid.display("#{alternate_on} #{cursor_flag}")).toBe("0 1")
    }), 30_000)

  it.scopedLive("shows the standings until a key, then prints them, sanitized, after restoring the terminal", () =>
    Effect.gen(function*() {
      const { pane, server } = yield* eveOnATinyMap
      yield* server.send("GAMEOVER\nB     0 Bob\nA   250 Eve\u001b[2J\u001b]2;owned\u0007\n")
      const standings = yield* pane.waitFor((lines) => lines.some((line) => line.includes("GAME OVER")))
      expect(standings.join("\n")).toContain(" 1. A 250 Eve?[2J?]2;owned?  <- winner, you")
      yield* pane.sendKeys("Space")
      const after = yield* pane.waitFor((lines) => lines.some((line) => line.startsWith("tty=")))
      expect(after.slice(0, 6)).toEqual([
        "GAME OVER:",
        " 1. A 250 Eve?[2J?]2;owned?  <- winner, you",
        " 2. B   0 Bob",
        "exit=0",
        "tty=restored",
        ""
      ])
      expect(yield* pane.display("#{alternate_on} #{cursor_flag} #{pane_title}")).not.toMatch(/owned|^1/)
    }), 30_000)

  for (const [how, quit, word] of [
    ["Ctrl-C", (pane: Pane) => pane.sendKeys("C-c"), ["You left the game. You collected 0 nuggets."]],
    ["Ctrl-D", (pane: Pane) => pane.sendKeys("C-d"), ["End of input: you left the game. You collected 0 nuggets."]],
    ["SIGTERM", (pane: Pane) => pane.signalChild("SIGTERM"), []]
  ] as const) {
    it.scopedLive(`sends KEY Q, restores the terminal and exits 0 on ${how}`, () =>
      Effect.gen(function*() {
        const { pane, server } = yield* eveOnATinyMap
        yield* quit(pane)
        expect(yield* server.receiveKey).toBe("KEY Q")
        const after = yield* pane.waitFor((lines) => lines.some((line) => line.startsWith("tty=")))
        expect(after.slice(0, word.length + 2)).toEqual([...word, "exit=0", "tty=restored"])
        expect(yield* pane.display("#{alternate_on} #{cursor_flag}")).toBe("0 1")
      }), 30_000)
  }

  it.scopedLive("sends KEY Q when its terminal hangs up", () =>
    Effect.gen(function*() {
      const { pane, server } = yield* eveOnATinyMap
      yield* pane.hangUp
      expect(yield* server.receiveKey).toBe("KEY Q")
    }), 30_000)
})

describe.concurrent("the Terminal service in tmux", () => {
  for (const how of ["defect", "throw", "exit"]) {
    it.scopedLive(`restores the terminal after a crash (${how})`, () =>
      Effect.gen(function*() {
        const probe = yield* Effect.promise(() => scriptCommand("test/client/crash-probe.ts"))
        const pane = yield* tmuxPane([...probe, how], size)
        yield* pane.waitFor((lines) => lines[0] === "the screen is open")
        expect(yield* pane.display("#{alternate_on} #{cursor_flag}")).toBe("1 0")
        yield* pane.sendKeys("x")
        const after = yield* pane.waitFor((lines) => lines.some((line) => line.startsWith("tty=")))
        expect(after.join("\n")).toMatch(/exit=[1-9]\d*\ntty=restored/)
        expect(yield* pane.display("#{alternate_on} #{cursor_flag}")).toBe("0 1")
      }), 20_000)
  }
})
