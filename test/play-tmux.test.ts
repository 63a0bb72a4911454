import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { nuggetsCommand } from "./cli/process.js"
import { tmuxPane } from "./client/tmux.js"
import { TestClient } from "./server/harness.js"
import { freeUdpPort } from "./net/freePort.js"


describe("nuggets play", () => {
  it.scopedLive("a server and the player's screen in one process; with a friend in, Ctrl-Z is refused, Q asks, and the friend gets the standings", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(freeUdpPort)
      const command = yield* Effect.promise(nuggetsCommand)
      const pane = yield* tmuxPane(
        [...command, "play", "Alice", "--map", "maps/small.txt", "--seed", "1", "--port", String(port), "--host", "127.0.0.1"],
        { columns: 80, rows: 20 }
      )
      // How friends join, at the address the server listens on: under the map, the window having rows to spare.
      const first = yield* pane.waitFor((lines) => lines[0]!.startsWith("Player A has 0 nuggets (250 nuggets unclaimed)."))
      expect(first[0]!.trimEnd()).toBe("Player A has 0 nuggets (250 nuggets unclaimed).")
      expect(first).toContain(`Friends join with: nuggets join 127.0.0.1 ${port} NAME`)

      const friend = yield* Effect.acquireRelease(
        Effect.promise(() => TestClient.open(port)),
        (client) => Effect.promise(() => client.close())
      )
      friend.send("PLAY Bob")
      expect(yield* Effect.promise(() => friend.next())).toBe("OK B")
      expect(yield* Effect.promise(() => friend.nextStarting("DISPLAY"))).toContain("@")

      // Suspending would freeze the friend's game: refused, and the game goes on.
      yield* pane.sendKeys("C-z")
      yield* pane.waitFor((lines) => lines[0]!.endsWith("  friends playing: no Ctrl-Z"))
      friend.send("KEY ?")
      expect(yield* Effect.promise(() => friend.nextStarting("NO"))).toBe("NO unknown keystroke")

      // Q asks first; the friend hears nothing yet.
      yield* pane.sendKeys("Q")
      yield* pane.waitFor((lines) => lines[0]!.endsWith("  Q again ends it for all"))
      yield* pane.sendKeys("Q")
      const gameOver = yield* Effect.promise(() => friend.nextStarting("GAMEOVER"))
      expect(gameOver).toMatch(/^GAMEOVER\nA +0 Alice\nB +0 Bob\n$/)
      expect(friend.received.some((message) => message.startsWith("QUIT"))).toBe(false)

      const after = yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      const shown = after.filter((line) => line !== "")
      expect(shown[0]).toBe(`Friends join with: nuggets join 127.0.0.1 ${port} NAME`)
      // Ended with every nugget on the map: stopped, and no one won.
      expect(shown.slice(1)).toEqual([
        "Thanks for playing! You collected 0 nuggets.",
        "GAME STOPPED:",
        " 1. A 0 Alice  <- you",
        " 1. B 0 Bob",
        "No winner: 250 nuggets left on the map.",
        "exit=0",
        "tty=restored"
      ])
    }), 60_000)

  it.scopedLive("with --web, the page's address is on the screen from the start, beside the join line", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(freeUdpPort)
      const command = yield* Effect.promise(nuggetsCommand)
      const pane = yield* tmuxPane(
        [...command, "play", "Alice", "--map", "maps/small.txt", "--port", String(port), "--host", "127.0.0.1", "--web", "127.0.0.1:0"],
        { columns: 80, rows: 20 }
      )
      // Under the map, wrapped at the window's width.
      const address = new RegExp(`Friends join with: nuggets join 127\\.0\\.0\\.1 ${port} NAME; in a browser here: (http://127\\.0\\.0\\.1:\\d+/)`)
      const text = (lines: ReadonlyArray<string>) => lines.map((line) => line.trimEnd()).join(" ")
      const shown = yield* pane.waitFor((lines) => address.test(text(lines)))
      const url = address.exec(text(shown))![1]!
      const page = yield* Effect.promise(() => fetch(url))
      expect(page.status).toBe(200)
      expect(yield* Effect.promise(() => page.text())).toContain("<title>Nuggets</title>")
      yield* pane.sendKeys("Q")
      yield* pane.waitFor((lines) => lines.includes("tty=restored"))
    }), 60_000)

  it.scopedLive("alone, Q leaves at once and says what you collected", () =>
    Effect.gen(function*() {
      const command = yield* Effect.promise(nuggetsCommand)
      const pane = yield* tmuxPane([...command, "play", "Alice", "--map", "maps/small.txt", "--host", "127.0.0.1"], { columns: 80, rows: 20 })
      yield* pane.waitFor((lines) => lines[0]!.startsWith("Player A has 0 nuggets"))
      yield* pane.sendKeys("Q")
      const after = yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      expect(after.filter((line) => line !== "").slice(1)).toEqual(["Thanks for playing! You collected 0 nuggets.", "exit=0", "tty=restored"])
    }), 60_000)
})
