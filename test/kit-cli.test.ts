import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as dgram from "node:dgram"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { nuggetsInProcess } from "./cli/in-process.js"
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
  it.scopedLive("a check that passes: the report on stdout, N passed, N failed, N warned, N not run last, exit 0", () =>
    Effect.gen(function*() {
      const server = yield* realServer(["maps/main.txt", "2"])
      const result = yield* nuggets("check", "server", "127.0.0.1", String(server.port), "--only", "join-player")
      expect(result.code).toBe(0)
      expect(result.stdout.split("\n")).toEqual([
        `nuggets check server 127.0.0.1:${server.port}`,
        "  dialect: unknown (no message told; each rule judged by what fits both dialects)",
        "  no --map: the checks that need the map were not run",
        "",
        expect.stringMatching(/^PASS join-player: PLAY is answered with OK L, then GRID and GOLD, then a DISPLAY \(\d+ ms\)$/),
        "",
        "1 passed, 0 failed, 0 warned, 0 not run"
      ])
      expect(result.stderr).toBe("")
    }), 60_000)

  it.scopedLive("-- COMMAND: the checker starts the server, with {map} and {seed} put in, and writes JUnit XML for CI", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "nuggets-junit-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const junit = join(dir, "report.xml")
      const command = yield* Effect.promise(() => nuggetsCommand())
      const result = yield* nuggets("check", "server", "--map", "maps/main.txt", "--seed", "4", "--only", "join-player", "--junit", junit, "--", ...command, "serve", "{map}", "{seed}", "--host", "127.0.0.1")
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/\n {2}server: started as .* serve \/.*\/maps\/main\.txt 4 --host 127\.0\.0\.1\n/)
      expect(result.stdout).toMatch(/\nPASS join-player: .*\n\n1 passed, 0 failed, 0 warned, 0 not run$/)
      const xml = readFileSync(junit, "utf8")
      expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="nuggets check server -- .*" tests="1" failures="0" skipped="0" time="[\d.]+">\n/)
      expect(xml).toMatch(/<testcase classname="nuggets\.check\.server" name="join-player" time="[\d.]+">\n {6}<system-out>PLAY is answered with OK L, then GRID and GOLD, then a DISPLAY<\/system-out>\n {4}<\/testcase>/)
      // An existing report is not written over without --overwrite.
      const again = yield* nuggets("check", "server", "127.0.0.1", "4000", "--junit", junit)
      expect(again).toMatchObject({ code: 1, stderr: `nuggets: ${junit} — already exists: --overwrite lets --junit replace it\n` })
    }), 60_000)

  it.scopedLive("a server that is not there: exit 1, one failure and the rest not run; --json and --junit for graders", () =>
    Effect.gen(function*() {
      const port = String(yield* closedPort)
      const text = yield* nuggets("check", "server", "127.0.0.1", port)
      expect(text.code).toBe(1)
      expect(text.stdout).toMatch(/\nFAIL join-spectator: .*\n     - the server's port is closed: nothing listens there\n       sent: "SPECTATE"\n       got:  ICMP port unreachable\n       spec line 373-375: /)
      expect(text.stdout).toMatch(/\nNOT RUN join-player: .*\n     not run: the server never answered \(see join-spectator\)\n/)
      expect(text.stdout).toMatch(/\n\n0 passed, 1 failed, 0 warned, 21 not run$/)
      expect(text.stderr).toBe(`nuggets: check server 127.0.0.1:${port} — 1 of 22 checks failed\n`)
      const json = yield* nuggets("check", "server", "127.0.0.1", port, "--json", "--only", "pile-count")
      expect(json.code).toBe(1)
      const report = JSON.parse(json.stdout)
      // With --only, a check it builds on that failed is reported with it: it is why it was not run.
      expect(report).toMatchObject({ target: `nuggets check server 127.0.0.1:${port}`, passed: 0, failed: 1, warned: 0, notRun: 1 })
      expect(report.checks.map((check: { name: string; status: string }) => [check.name, check.status])).toEqual([["join-spectator", "fail"], ["pile-count", "not run"]])
      expect(report.checks[1]).toMatchObject({ notRun: "the server never answered (see join-spectator)", failures: [] })
    }), 60_000)

  it.live("bad command lines: one line and exit 1", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
        [["check", "server", "localhost", "4000", "--only", "nope"], /^nuggets: --only — no check 'nope'; the checks: join-spectator, join-player, .*, visibility\n$/],
        [["check", "server"], /^nuggets: COMMAND — missing; try 'nuggets help check server'\n$/],
        [["check", "server", "localhost"], /^nuggets: PORT — missing; give HOST PORT, or -- COMMAND to start the server; try 'nuggets help check server'\n$/],
        [["check", "server", "localhost", "99999"], /^nuggets: PORT — must be 1\.\.65535, not 99999\n$/],
        [["check", "server", "localhost", "4000", "5000"], /^nuggets: unexpected argument '5000' — to start the server, put -- before its command\n$/],
        [["check", "server", "--", "./server", "{map}"], /^nuggets: \{map\} — COMMAND names the map, but no --map FILE was given to put there\n$/],
        [["check", "server", "--overwrite", "localhost", "4000"], /^nuggets: --overwrite — only with --junit\n$/],
        [["check", "server", "localhost", "4000", "--dialect", "2020"], /^nuggets: --dialect — must be 2019, 2021 or auto, not '2020'\n$/],
        [["check", "server", "localhost", "4000", "--map", "no-such.txt"], /^nuggets: no-such.txt — cannot read the map: no such file or folder\n$/],
        [["check", "server", "nosuch.invalid", "4000", "--only", "join-player"], /^nuggets: check server nosuch.invalid:4000 — 1 of 2 checks failed\n$/],
        [["proxy", "0", "localhost", "4000", "--delay", "80-20"], /^nuggets: --delay — the range 80-20 runs backwards\n$/],
        [["proxy", "0", "localhost", "4000", "--delay", "soon"], /^nuggets: --delay — 'soon' is not MS or MS-MS \(milliseconds\)\n$/],
        [["proxy", "0", "localhost", "4000", "--loss", "2"], /^nuggets: --loss — must be 0..1, not 2\n$/],
        [["proxy", "0", "nosuch.invalid", "4000"], /^nuggets: nosuch.invalid — unknown host\n$/]
      ]
      // Through the CLI's own entry in this process; the tests above show a process's exit status is the code.
      for (const [args, stderr] of cases) {
        const result = yield* Effect.promise(() => nuggetsInProcess(...args))
        expect(result.code, args.join(" ")).toBe(1)
        expect(result.stderr, args.join(" ")).toMatch(stderr)
      }
    }), 60_000)
})
