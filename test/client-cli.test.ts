import { describe, expect, it } from "@effect/vitest"
import { cursorShow, cursorTo, exitAlternativeScreen } from "ansi-escapes"
import { Effect } from "effect"
import { readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { fakeServer } from "./client/fakes.js"
import { spawnNuggets } from "./client/tmux.js"

/** `nuggets join` as a program: arguments, exit codes, piped input, logging. */

const run = (...args: ReadonlyArray<string>) =>
  spawnNuggets(["join", ...args]).pipe(Effect.flatMap(({ finished }) => finished))

describe("nuggets join on the command line", () => {
  it.scopedLive("rejects a bad port and an unknown host with one line and a non-zero exit", () =>
    Effect.gen(function*() {
      const [port, host] = yield* Effect.all([run("localhost", "65536"), run("no-such-host.invalid", "1234")])
      expect(port.code).toBe(1)
      expect(port.stderr).toBe("nuggets: PORT — must be 1..65535, not 65536\n")
      expect(host.code).toBe(1)
      expect(host.stderr.trim()).toBe("nuggets: no-such-host.invalid — unknown host")
      expect(port.stdout + host.stdout).toBe("")
    }), 30_000)

  it.scopedLive("says it is connecting, then that no server answers, and restores the terminal", () =>
    Effect.gen(function*() {
      // A socket that never answers: bound, so nothing else can be listening there.
      const silent = yield* fakeServer
      const result = yield* run("127.0.0.1", String(silent.port), "--timeout", "0.5")
      expect(result.code).toBe(1)
      expect(result.stderr.split("\n").filter((line) => line.startsWith("nuggets:")))
        .toEqual([`nuggets: 127.0.0.1:${silent.port} — no Nuggets server answered`])
      expect(result.stdout).toContain(`connecting to 127.0.0.1:${silent.port}...`)
      expect(result.stdout.endsWith(cursorShow + exitAlternativeScreen)).toBe(true)
    }), 20_000)

  it.scopedLive("plays from piped input: each key is sent, end of input sends KEY Q and exits 0; --log logs", () =>
    Effect.gen(function*() {
      const server = yield* fakeServer
      const log = `${tmpdir()}/nuggets-client-${process.pid}.log`
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(log, { force: true })))
      const client = yield* spawnNuggets(["join", "localhost", String(server.port), "Pipe", "--log", log])
      expect(yield* server.receive).toBe("PLAY Pipe")
      yield* server.send("OK A", "GRID 1 3", "GOLD 0 0 5", "DISPLAY\n.@.\n")
      client.child.stdin.write("hj")
      expect(yield* server.receive).toBe("KEY h")
      expect(yield* server.receive).toBe("KEY j")
      client.child.stdin.end()
      expect(yield* server.receive).toBe("KEY Q")
      const result = yield* client.finished
      expect(result.code).toBe(0)
      expect(result.stderr).toBe("")
      // Drawn by diffs: the status line first, then only what changed; the screen restored at the end.
      expect(result.stdout).toContain("Player A has 0 nuggets (? nuggets unclaimed).")
      expect(result.stdout).toContain(`${cursorTo(24, 0)}5`)
      expect(result.stdout).toContain(`${cursorTo(0, 1)}.@.`)
      // No colour when the output is not a terminal.
      expect(result.stdout).not.toContain("\u001b[0;")
      expect(result.stdout.endsWith(cursorShow + exitAlternativeScreen + "End of input: you left the game.\n")).toBe(true)
      const logged = readFileSync(log, "utf8")
      expect(logged).toContain(`sent "PLAY Pipe"`)
      expect(logged).toContain(`received "GOLD 0 0 5"`)
    }), 20_000)
})
