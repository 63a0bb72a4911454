import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as dgram from "node:dgram"
import { nuggetsCommand } from "./cli/process.js"
import { tmuxPane } from "./client/tmux.js"
import { TestClient } from "./server/harness.js"

/** A port that was free a moment ago, for a program that must be told its port. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = dgram.createSocket("udp4")
    probe.bind(0, "127.0.0.1", () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })

describe("nuggets play", () => {
  it.scopedLive("runs a server and the player's screen in one process; a friend joins; Q stops both", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(freePort)
      const command = yield* Effect.promise(nuggetsCommand)
      const pane = yield* tmuxPane(
        [...command, "play", "Alice", "--map", "maps/small.txt", "--seed", "1", "--port", String(port), "--host", "127.0.0.1"],
        { columns: 80, rows: 20 }
      )
      // With no note to show, the status line shows how friends join.
      const first = yield* pane.waitFor((lines) => lines[0]!.startsWith("Player A has 0 nuggets (250 nuggets unclaimed)."))
      expect(first[0]).toMatch(new RegExp(`^Player A has 0 nuggets \\(250 nuggets unclaimed\\)\\.  (join: \\S+ ${port}|port ${port})$`))

      const friend = yield* Effect.acquireRelease(
        Effect.promise(() => TestClient.open(port)),
        (client) => Effect.promise(() => client.close())
      )
      friend.send("PLAY Bob")
      expect(yield* Effect.promise(() => friend.next())).toBe("OK B")
      expect(yield* Effect.promise(() => friend.nextStarting("DISPLAY"))).toContain("@")

      yield* pane.sendKeys("Q")
      expect(yield* Effect.promise(() => friend.nextStarting("QUIT"))).toBe("QUIT server shutting down")
      const after = yield* pane.waitFor((lines) => lines.includes("tty=restored"))
      const shown = after.filter((line) => line !== "")
      expect(shown[0]).toMatch(new RegExp(`^Nuggets server on port ${port}; friends join with: nuggets join \\S+ ${port} NAME$`))
      expect(shown.slice(1, 4)).toEqual(["Thanks for playing!", "exit=0", "tty=restored"])
    }), 60_000)
})
