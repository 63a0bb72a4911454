import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { fakeServer } from "./client/fakes.js"
import { nuggets, tmuxPane } from "./client/tmux.js"

/** `nuggets join` as a program in a terminal: exit codes, what is left on the terminal, logging. */

const size = { columns: 80, rows: 12 }

describe("nuggets join on the command line", () => {
  it.scopedLive("an unknown host: one line and exit 1", () =>
    Effect.gen(function*() {
      const pane = yield* tmuxPane([...nuggets, "join", "no-such-host.invalid", "1234"], size)
      const after = yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      expect(after.filter((line) => line !== "")).toEqual(["nuggets: no-such-host.invalid — unknown host", "exit=1", "tty=restored"])
    }), 30_000)

  it.scopedLive("says it is connecting, then that no server answers, and restores the terminal", () =>
    Effect.gen(function*() {
      // A socket that never answers: bound, so nothing else can be listening there.
      const silent = yield* fakeServer
      const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(silent.port), "--timeout", "1"], size)
      yield* pane.waitFor((lines) => lines[0] === `connecting to 127.0.0.1:${silent.port}...`)
      const after = yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      expect(after.filter((line) => line !== "")).toEqual([
        `nuggets: 127.0.0.1:${silent.port} — no Nuggets server answered`,
        "exit=1",
        "tty=restored"
      ])
      expect(yield* pane.display("#{alternate_on} #{cursor_flag}")).toBe("0 1")
    }), 30_000)

  it.scopedLive("sends each key; Q sends KEY Q; --log with --log-level debug logs every datagram", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const log = `${tmpdir()}/nuggets-client-${process.pid}.log`
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(log, { force: true })))
      const pane = yield* tmuxPane(
        [...nuggets, "join", "localhost", String(server.port), "Eve", "--log", log, "--log-level", "debug"],
        size
      )
      expect(yield* server.receive).toBe("PLAY Eve")
      yield* server.send("OK A", "GRID 1 3", "GOLD 5 5 245", "DISPLAY\n.@.\n")
      yield* pane.waitFor((lines) => lines[1] === ".@.")
      yield* pane.sendKeys("h", "j")
      expect(yield* server.receiveKey).toBe("KEY h")
      expect(yield* server.receiveKey).toBe("KEY j")
      yield* pane.sendKeys("Q")
      expect(yield* server.receiveKey).toBe("KEY Q")
      yield* server.send("QUIT Thanks for playing!")
      yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      const logged = readFileSync(log, "utf8")
      expect(logged).toContain(`sent "PLAY Eve"`)
      expect(logged).toContain(`received "GOLD 5 5 245"`)
    }), 30_000)
})
