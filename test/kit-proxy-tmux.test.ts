import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Program } from "./cli/process.js"
import { nuggets, realServer, tmuxPane } from "./client/tmux.js"

/** `nuggets proxy` between the real client and the real server, losing a fifth of the datagrams. */

const startProxy = (serverPort: number, ...faults: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const proxy = yield* Effect.acquireRelease(
      Effect.sync(() =>
        Program.start([...nuggets, "proxy", "0", "127.0.0.1", String(serverPort), "--listen-host", "127.0.0.1", ...faults])
      ),
      (proxy) => Effect.sync(() => proxy.child.kill("SIGKILL"))
    )
    const first = yield* Effect.promise(() => proxy.line(/^Relaying UDP port \d+/))
    return { proxy, port: Number(/port (\d+)/.exec(first)![1]) }
  })

describe("nuggets proxy", () => {
  it.scopedLive("at 20% loss, the game reaches its end and the timeline shows the lost and repeated messages", () =>
    Effect.gen(function*() {
      const server = yield* realServer(["maps/main.txt", "8"])
      const { port, proxy } = yield* startProxy(server.port, "--loss", "0.2", "--seed", "11")
      const pane = yield* tmuxPane([...nuggets, "join", "127.0.0.1", String(port)], { columns: 100, rows: 30 })
      // The spectator is in once its map is drawn. Its status line may still be blank: with
      // this seed its first GOLD is lost, and the client sends nothing its user did not type,
      // so the count comes with the next GOLD, at the first nugget collected.
      yield* pane.waitFor((lines) => lines.some((line) => line.includes("+---")))
      // A bot asks to join again (after 1, 3, 7 s, then every 4 s), but only while the game lasts:
      // at 8 keys/s each it lasts about 20 s, seven tries, all lost at 20% each way for about one
      // bot in 1,300 (at 100 keys/s the game was over in 2 s, three tries: one bot in 20).
      const bots = Program.start([...nuggets, "bot", "127.0.0.1", String(port), "--count", "3", "--rate", "8", "--seed", "2", "--timeout", "30"])
      const botsExit = yield* Effect.promise(() => bots.exitCode(90_000))
      expect(botsExit, `${bots.stdout.join("\n")}\n${bots.stderr}`).toBe(0)
      expect(bots.stdout.filter((line) => line.endsWith("(game over)"))).toHaveLength(3)
      const after = yield* pane.waitFor((lines) => lines.includes("exit=0"), "20 seconds")
      expect(after[0]).toBe("GAME OVER:")
      proxy.child.kill("SIGINT")
      expect(yield* Effect.promise(() => proxy.exitCode())).toBe(0)
      const timeline = proxy.stdout
      const lost = timeline.filter((line) => / LOST /.test(line))
      const sent = timeline.filter((line) => / (->|LOST|DUP) /.test(line) && !line.includes("(sent now)"))
      // About a fifth of what either side sent, and both ways.
      expect(lost.length / sent.length).toBeGreaterThan(0.12)
      expect(lost.length / sent.length).toBeLessThan(0.28)
      expect(lost.some((line) => line.includes(" -> server "))).toBe(true)
      expect(lost.some((line) => line.includes(" server -> "))).toBe(true)
      // What the ends send again: the server's GAMEOVER, three times. (The client, whose user types
      // nothing, sends nothing but its SPECTATE.)
      const again = timeline.filter((line) => line.endsWith("(again)"))
      expect(again.some((line) => / GAMEOVER /.test(line))).toBe(true)
      expect(timeline.some((line) => / GAMEOVER 3 lines: /.test(line))).toBe(true)
      // Whatever the proxy flags, with the lines before it, is shown when the count is not 0.
      const flagged = timeline.flatMap((line, at) => (line.includes("!!") ? timeline.slice(Math.max(0, at - 6), at + 1) : []))
      expect(timeline.at(-1), flagged.join("\n")).toMatch(/^\d+ datagrams: \d+ lost, 0 duplicated, 0 delayed, 0 reordered; \d+ sent again by their sender; 0 flagged$/)
    }), 120_000)
})
