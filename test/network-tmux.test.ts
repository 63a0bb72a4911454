import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { nuggets, realServer, tmuxPane } from "./client/tmux.js"
import { relayResource } from "./net/relay.js"

/** The real `nuggets join` in a real terminal, with the real server, through a relay that loses datagrams. */

const size = { columns: 100, rows: 30 }
const statusLine = /^Player A has \d+ nuggets \(\d+ nuggets unclaimed\)\./

const where = (lines: ReadonlyArray<string>) => {
  const row = lines.findIndex((line) => line.includes("@"))
  return row < 0 ? undefined : { row, col: lines[row]!.indexOf("@") }
}

/** A step the screen shows to be open, and where it leads. */
const openStep = (lines: ReadonlyArray<string>) => {
  const at = where(lines)!
  for (const [key, dRow, dCol] of [["h", 0, -1], ["l", 0, 1], ["k", -1, 0], ["j", 1, 0]] as const) {
    if (/[.#*]/.test(lines[at.row + dRow]?.[at.col + dCol] ?? " ")) return { key, row: at.row + dRow, col: at.col + dCol }
  }
  throw new Error("no open step")
}

/** The real server on the example map, and a relay in front of it. */
const serverBehindRelay = (seed: number) =>
  Effect.gen(function*() {
    const server = yield* realServer(["maps/main.txt", String(seed)])
    const relay = yield* relayResource({ server: { host: "127.0.0.1", port: server.port } })
    return { relay, server }
  })

const joined = (lines: ReadonlyArray<string>) => statusLine.test(lines[0]!) && where(lines) !== undefined

describe.concurrent("nuggets join in tmux, on a network that loses datagrams", () => {
  it.scopedLive("its first PLAYs lost: it says it is connecting, asks again, and the game appears", () =>
    Effect.gen(function*() {
      const { relay } = yield* serverBehindRelay(3)
      // Held back as if lost, and let through late: the server then sees the same PLAY three times.
      const held = yield* relay.hold({ dir: "up", match: "PLAY", when: { first: 2 } })
      const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(relay.port), "Alice"], size)
      yield* pane.waitFor((lines) => lines[0] === `connecting to 127.0.0.1:${relay.port}...`)
      let holds = 0
      yield* relay.waitFor((event) => event.kind === "hold" && ++holds === 2, 5000, "two PLAYs held")
      expect(yield* held.held).toHaveLength(2)
      yield* pane.waitFor(joined)
      expect(yield* held.release()).toBe(2)
      // The late copies are answered with the same letter, and the game goes on as one player.
      const step = openStep(yield* pane.waitFor(joined))
      yield* pane.sendKeys(step.key)
      const moved = yield* pane.waitFor((lines) => lines[step.row]?.[step.col] === "@")
      expect(moved[0]).toMatch(/^Player A has/)
      yield* pane.sendKeys("Q")
      yield* pane.waitFor((lines) => lines.includes("tty=restored"))
    }), 60_000)

  it.scopedLive("the DISPLAY after a move lost: the next key shows the move", () =>
    Effect.gen(function*() {
      const { relay } = yield* serverBehindRelay(4)
      const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(relay.port), "Alice"], size)
      const lines = yield* pane.waitFor(joined)
      const from = where(lines)!
      const step = openStep(lines)
      const dropped = yield* relay.drop({ dir: "down", match: "DISPLAY", when: { first: 1 } })
      yield* pane.sendKeys(step.key)
      yield* relay.waitFor((event) => event.kind === "drop", 5000, "the DISPLAY dropped")
      // The client asks for nothing of its own accord; the user's next key brings the view (our server answers every move key).
      yield* pane.sendKeys(step.key)
      yield* pane.waitFor((shown) => shown[from.row]?.[from.col] !== "@" && where(shown) !== undefined)
      expect((yield* dropped.counts).fired).toBe(1)
      expect((yield* relay.events).filter((event) => event.dir === "up" && event.text.startsWith("KEY")).map((event) => event.text)).toEqual([`KEY ${step.key}`, `KEY ${step.key}`])
      yield* pane.sendKeys("Q")
      yield* pane.waitFor((lines) => lines.includes("tty=restored"))
    }), 60_000)

  it.scopedLive("the server killed, behind the relay: a key goes unanswered, the status line says so, and Q leaves at once", () =>
    Effect.gen(function*() {
      const { relay, server } = yield* serverBehindRelay(5)
      const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(relay.port), "Alice"], size)
      const step = openStep(yield* pane.waitFor(joined))
      yield* server.kill
      // A move the screen shows open must be answered (an unknown key need not be, by every server).
      yield* pane.sendKeys(step.key)
      yield* pane.waitFor((lines) => lines[0]!.endsWith("the server is not answering; Q leaves at once"))
      yield* pane.sendKeys("Q")
      const after = yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      expect(after.slice(0, 3)).toEqual(["The server did not answer; left anyway. You collected 0 nuggets.", "exit=0", "tty=restored"])
      // At once: one Q, not asked again while waiting for an answer.
      expect((yield* relay.events).filter((event) => event.dir === "up" && event.text === "KEY Q")).toHaveLength(1)
    }), 60_000)

  it.scopedLive("the server stopped, then continued: the warning that it is not answering goes as soon as it answers", () =>
    Effect.gen(function*() {
      const server = yield* realServer(["maps/main.txt", "7"])
      const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(server.port), "Alice"], size)
      const step = openStep(yield* pane.waitFor(joined))
      yield* server.signal("SIGSTOP")
      yield* pane.sendKeys(step.key)
      yield* pane.waitFor((lines) => lines[0]!.endsWith("the server is not answering; Q leaves at once"))
      yield* server.signal("SIGCONT")
      // No key pressed: the server's answers alone clear it.
      const back = yield* pane.waitFor((lines) => statusLine.test(lines[0]!) && !lines[0]!.includes("not answering"))
      expect(back[0]).toMatch(/^Player A has \d+ nuggets \(\d+ nuggets unclaimed\)\.( +GOLD received: \d+)?$/)
      yield* pane.sendKeys("Q")
      yield* pane.waitFor((lines) => lines.includes("tty=restored"))
    }), 60_000)

  it.scopedLive("the server killed, no relay: the closed port is noticed at the next key", () =>
    Effect.gen(function*() {
      const server = yield* realServer(["maps/main.txt", "6"])
      const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(server.port), "Alice"], size)
      yield* pane.waitFor(joined)
      yield* server.kill
      yield* pane.sendKeys("x")
      // Told by the system, which only the key's datagram can draw: no silence was waited out.
      yield* pane.waitFor((lines) => lines[0]!.includes("the server is gone (port unreachable); Q leaves"))
      yield* pane.sendKeys("Q")
      yield* pane.waitFor((lines) => lines.includes("tty=restored"))
    }), 60_000)
})
