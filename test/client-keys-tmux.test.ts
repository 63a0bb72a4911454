import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fakeServer } from "./client/fakes.js"
import { nuggets, tmuxPane } from "./client/tmux.js"

/** The terminal client's own keys and looks, in a real terminal, against a server played by the test. */

const size = { columns: 60, rows: 12 }
const map = ["+-----+", "|.@.*.|", "|B...#|", "+-----+"]

const eve = (environment: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const server = yield* fakeServer
    const pane = yield* tmuxPane(["env", ...environment, ...nuggets, "join", "127.0.0.1", String(server.port), "Eve"], size)
    expect(yield* server.receive).toBe("PLAY Eve")
    yield* server.send("OK A", "GRID 4 7", "GOLD 0 0 250", `DISPLAY\n${map.join("\n")}\n`)
    yield* pane.waitFor((lines) => lines[2] === "|.@.*.|")
    return { pane, server }
  })

describe("the client's looks and keys, in tmux", () => {
  it.scopedLive("the spectator at 40 columns: ? shows its own keys in a whole frame; move keys stay here", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(server.port)], { columns: 40, rows: 20 })
      expect(yield* server.receive).toBe("SPECTATE")
      yield* server.send("GRID 4 7", "GOLD 0 0 250", `DISPLAY\n${map.join("\n")}\n`)
      yield* pane.waitFor((lines) => lines[2] === "|.@.*.|")
      yield* pane.sendKeys("?")
      const help = yield* pane.waitFor((lines) => lines.some((line) => line.includes("stop watching")))
      const box = help.filter((line) => /^\s*[|+]/.test(line)).map((line) => line.trim())
      expect(box.length).toBeGreaterThan(5)
      for (const line of box) expect(line).toMatch(/^([|].*[|]|[+]-+[+])$/)
      expect(help.join("\n")).not.toContain("run that way")
      yield* pane.sendKeys("q")
      yield* pane.sendKeys("h")
      yield* pane.waitFor((lines) => lines[0] === "Spectator: 250 unclaimed.  only watching")
      yield* pane.sendKeys("Q")
      // The first key the server hears is Q: neither ?, nor h.
      expect(yield* server.receiveKey).toBe("KEY Q")
    }), 30_000)

  it.scopedLive("draws in colour: you, gold, the others and passages each their own", () =>
    Effect.gen(function*() {
      const { pane } = yield* eve()
      const styled = (yield* pane.captureStyled).join("\n")
      // Each occupant comes right after an escape sequence that sets its look.
      for (const char of ["@", "*", "B", "#"]) expect(styled).toMatch(new RegExp(`\\u001b\\[[0-9;]*m\\${char}`))
      // Gold in yellow (33), however tmux splits the sequence.
      expect(styled).toMatch(/\u001b\[[0-9;]*33[0-9;]*m(\u001b\[[0-9;]*m)*\*/)
    }), 30_000)

  it.scopedLive("draws no colour at all with NO_COLOR set", () =>
    Effect.gen(function*() {
      const { pane } = yield* eve(["NO_COLOR=1"])
      expect((yield* pane.captureStyled).join("\n")).not.toContain("\u001b[")
    }), 30_000)

  it.scopedLive("? shows every key over the map; any key closes it; neither goes to the server; arrows move", () =>
    Effect.gen(function*() {
      const { pane, server } = yield* eve()
      yield* pane.sendKeys("?")
      const help = yield* pane.waitFor((lines) => lines.some((line) => line.includes("Ctrl-Z")))
      expect(help.join("\n")).toMatch(/H J K L Y U B N +run that way as far as you can/)
      yield* pane.sendKeys("h")
      yield* pane.waitFor((lines) => !lines.some((line) => line.includes("Ctrl-Z")))
      yield* pane.sendKeys("Up")
      // The first key the server hears is the arrow's, not ? or the h that closed the help.
      expect(yield* server.receiveKey).toBe("KEY k")
    }), 30_000)

  it.scopedLive("Ctrl-Z in a shell with job control: stopped, the shell's prompt back; fg takes the screen again", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const pane = yield* tmuxPane(["bash", "--norc", "--noprofile", "-i"], size)
      yield* pane.sendKeys("-l", `PS1='$ ' ${nuggets.join(" ")} join 127.0.0.1 ${server.port} Eve`)
      yield* pane.sendKeys("Enter")
      expect(yield* server.receive).toBe("PLAY Eve")
      yield* server.send("OK A", "GRID 4 7", "GOLD 0 0 250", `DISPLAY\n${map.join("\n")}\n`)
      yield* pane.waitFor((lines) => lines[2] === "|.@.*.|")
      yield* pane.sendKeys("C-z")
      yield* pane.waitFor((lines) => lines.some((line) => /Stopped/.test(line)))
      expect(yield* pane.display("#{alternate_on}")).toBe("0")
      yield* pane.sendKeys("-l", "fg")
      yield* pane.sendKeys("Enter")
      yield* pane.waitFor((lines) => lines[2] === "|.@.*.|")
      expect(yield* pane.display("#{alternate_on}")).toBe("1")
      yield* pane.sendKeys("l")
      expect(yield* server.receiveKey).toBe("KEY l")
    }), 30_000)

  it.scopedLive("Ctrl-Z with no shell to come back to: says so and plays on", () =>
    Effect.gen(function*() {
      const { pane, server } = yield* eve()
      yield* pane.sendKeys("C-z")
      yield* pane.waitFor((lines) => lines[0]!.includes("Ctrl-Z:") && lines[2] === "|.@.*.|")
      yield* pane.sendKeys("l")
      expect(yield* server.receiveKey).toBe("KEY l")
    }), 30_000)

  it.scopedLive("a map larger than the window: the spec's complaint, then S plays it in a view that scrolls", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(server.port), "Eve"], size)
      yield* server.receive
      const rows = Array.from({ length: 40 }, (_, row) =>
        row === 0 || row === 39 ? "+" + "-".repeat(98) + "+" : "|" + ".".repeat(98) + "|")
      rows[30] = rows[30]!.slice(0, 70) + "@" + rows[30]!.slice(71)
      yield* server.send("OK A", "GRID 40 100", "GOLD 0 0 250", `DISPLAY\n${rows.join("\n")}\n`)
      yield* pane.waitFor((lines) => lines.join(" ").includes("100 columns wide and 41 rows tall"))
      yield* pane.sendKeys("S")
      const scrolled = yield* pane.waitFor((lines) => /^Player A/.test(lines[0]!) && lines.slice(1).some((line) => line.includes("@")))
      expect(scrolled.slice(1, 12).every((line) => line.length <= 60)).toBe(true)
      yield* pane.sendKeys("l")
      expect(yield* server.receiveKey).toBe("KEY l")
    }), 30_000)
})
