import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as dgram from "node:dgram"
import { nuggetsCommand, projectDir, run } from "./cli/process.js"
import { realServer } from "./client/tmux.js"

/** The kit's commands as a user meets them: the report on stdout, the exit status, and bad command lines. */

const nuggets = (...args: ReadonlyArray<string>) => Effect.promise(async () => run([...(await nuggetsCommand()), ...args], { cwd: projectDir }))

/** A port on this machine where nothing listens. */
const closedPort = Effect.async<number>((resume) => {
  const socket = dgram.createSocket("udp4")
  socket.bind(0, "127.0.0.1", () => {
    const { port } = socket.address()
    socket.close(() => resume(Effect.succeed(port)))
  })
})

describe("nuggets check server", () => {
  it.scopedLive("a check that passes: the report on stdout, N passed, N failed last, exit 0", () =>
    Effect.gen(function*() {
      const server = yield* realServer(["maps/main.txt", "2"])
      const result = yield* nuggets("check", "server", "127.0.0.1", String(server.port), "--only", "join-player")
      expect(result.code).toBe(0)
      expect(result.stdout.split("\n")).toEqual([
        `nuggets check server 127.0.0.1:${server.port}`,
        "  dialect: unknown (no message told; judged as 2019)",
        "  no --map: the checks that need the map are skipped",
        "",
        expect.stringMatching(/^PASS join-player: PLAY is answered with OK L, then GRID, GOLD 0 0 r and a DISPLAY \(\d+ ms\)$/),
        "",
        "1 passed, 0 failed"
      ])
      expect(result.stderr).toBe("")
    }), 60_000)

  it.scopedLive("a server that is not there: exit 1, and --json for graders", () =>
    Effect.gen(function*() {
      const port = String(yield* closedPort)
      const text = yield* nuggets("check", "server", "127.0.0.1", port)
      expect(text.code).toBe(1)
      expect(text.stdout).toMatch(/\nFAIL join-spectator: .*\n     - the server's port is closed: nothing listens there\n       sent: "SPECTATE"\n       got:  ICMP port unreachable\n       spec line 373-375: /)
      expect(text.stdout).toMatch(/\n2 skipped\n0 passed, 17 failed$/)
      expect(text.stderr).toBe(`nuggets: check server 127.0.0.1:${port} — 17 of 19 checks failed\n`)
      const json = yield* nuggets("check", "server", "127.0.0.1", port, "--json", "--only", "pile-count")
      expect(json.code).toBe(1)
      const report = JSON.parse(json.stdout)
      expect(report).toMatchObject({ target: `nuggets check server 127.0.0.1:${port}`, passed: 0, failed: 1, skipped: 0 })
      expect(report.checks[0]).toMatchObject({ name: "pile-count", status: "fail", failures: [{ what: "the spectator never saw the map", spec: { line: "379" } }] })
    }), 60_000)

  it.live("bad command lines: one line and exit 1", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
        [["check", "server", "localhost", "4000", "--only", "nope"], /^nuggets: --only — no check 'nope'; the checks: join-spectator, join-player, .*, visibility\n$/],
        [["check", "server", "localhost", "4000", "--dialect", "2020"], /^nuggets: --dialect — must be 2019, 2021 or auto, not '2020'\n$/],
        [["check", "server", "localhost", "4000", "--map", "no-such.txt"], /^nuggets: no-such.txt — cannot read the map: no such file or folder\n$/],
        [["check", "server", "nosuch.invalid", "4000", "--only", "join-player"], /^nuggets: check server nosuch.invalid:4000 — 1 of 1 checks failed\n$/],
        [["proxy", "0", "localhost", "4000", "--delay", "80-20"], /^nuggets: --delay — the range 80-20 runs backwards\n$/],
        [["proxy", "0", "localhost", "4000", "--delay", "soon"], /^nuggets: --delay — 'soon' is not MS or MS-MS \(milliseconds\)\n$/],
        [["proxy", "0", "localhost", "4000", "--loss", "2"], /^nuggets: --loss — must be 0..1, not 2\n$/],
        [["proxy", "0", "nosuch.invalid", "4000"], /^nuggets: nosuch.invalid — unknown host\n$/]
      ]
      for (const [args, stderr] of cases) {
        const result = yield* nuggets(...args)
        expect(result.code, args.join(" ")).toBe(1)
        expect(result.stderr, args.join(" ")).toMatch(stderr)
      }
    }), 60_000)
})
