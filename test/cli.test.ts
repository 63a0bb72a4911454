import { afterAll, describe, expect, it } from "@effect/vitest"
import * as dgram from "node:dgram"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { nuggetsInProcess as nuggets } from "./cli/in-process.js"
import { nuggetsCommand, projectDir, run } from "./cli/process.js"
import { walkRecording } from "./support.js"

/**
 * The command line as a new user meets it: help, and the bad inputs people type. Run in
 * this process through the CLI's own entry; a few real processes check what only a
 * process shows (exit codes, a terminal or none).
 */

const { version } = JSON.parse(readFileSync(join(projectDir, "package.json"), "utf8")) as { version: string }
const dir = mkdtempSync(join(tmpdir(), "nuggets-cli-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const existing = join(dir, "existing.txt")
writeFileSync(existing, "keep me\n")
const walk = join(dir, "walk.ndjson")
writeFileSync(walk, walkRecording("hjkl"))

describe("help and version", () => {
  it("--version, -V, and help [command] work; help is plain text when not on a terminal", async () => {
    for (const args of [["--version"], ["-V"]]) expect(await nuggets(...args)).toMatchObject({ code: 0, stdout: `nuggets ${version}\n`, stderr: "" })
    const top = await nuggets("help")
    expect(top.code).toBe(0)
    expect(top.stdout).toMatch(/^Usage: nuggets <command>/)
    for (const command of ["play", "serve", "join", "bot", "replay", "map"]) expect(top.stdout).toMatch(new RegExp(`^  ${command} `, "m"))
    expect(top.stdout).not.toContain("\u001b")
    expect((await nuggets("help", "map", "check")).stdout).toMatch(/^Usage: nuggets map check FILE/)
    expect(await nuggets("help", "help")).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: nuggets help \[COMMAND\.\.\.\]/) })
  })

  it("every command's help names it in full, gives each option a description and its default, and lists the keys where one plays", async () => {
    for (const command of [["play"], ["serve"], ["join"], ["bot"], ["replay"], ["map", "check"]]) {
      const help = await nuggets(...command, "--help")
      expect(help.code, command.join(" ")).toBe(0)
      expect(help.stdout).toMatch(new RegExp(`^Usage: nuggets ${command.join(" ")} `))
      expect(help.stdout).not.toMatch(/user-defined piece of text|This setting is optional|--wizard|--completions/)
    }
    const join = (await nuggets("join", "--help")).stdout
    expect(join).toMatch(/--timeout S +seconds to wait for the server.s first answer \(default: 5\)/)
    expect(join).toMatch(/Keys:\n  h j k l +move left, down, up, right/)
    expect((await nuggets("bot", "--help")).stdout).toContain("(default: 2)")
    expect((await nuggets("play", "--help")).stdout).toContain("Ctrl-Z")
  })
})

describe("bad command lines: exit 1 and one line, nuggets: <what> — <why>", () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [["serve", "--bogus"], "unknown option '--bogus' — try 'nuggets help serve'"],
    [["serve", "-p", "5"], "unknown option '-p' — try 'nuggets help serve'"],
    [["serve", "--wizard"], "unknown option '--wizard' — try 'nuggets help serve'"],
    [["serve", "--completions", "bash"], "unknown option '--completions' — try 'nuggets help serve'"],
    [["--bogus"], "unknown option '--bogus' — try 'nuggets help'"],
    [["-v"], "unknown option '-v' — try 'nuggets help'"],
    [["map", "foo"], "unknown command 'map foo' — try 'nuggets help map'"],
    [["help", "foo"], "unknown command 'foo' — try 'nuggets help'"],
    [["--version", "extra"], "unexpected argument 'extra' — --version takes none"],
    [["serve", "--port", "abc"], "--port — 'abc' is not a whole number"],
    [["serve", "--port", "1e3"], "--port — '1e3' is not a whole number"],
    [["serve", "--port", "0x10"], "--port — '0x10' is not a whole number"],
    [["serve", "--port", "70000"], "--port — must be 0..65535, not 70000"],
    [["serve", "--port", "1", "--port", "2"], "--port — given twice"],
    [["serve", "--port"], "--port — needs a value"],
    [["join", "localhost", "4000", "--no-color=yes"], "--no-color — takes no value"],
    [["join", "localhost", "1e3"], "PORT — '1e3' is not a whole number"],
    [["join"], "HOST — missing; try 'nuggets help join'"],
    [["bot", "localhost"], "PORT — missing; try 'nuggets help bot'"],
    [["bot", "localhost", "0"], "PORT — must be 1..65535, not 0"],
    [["bot", "h", "4000", "--timeout", "-1"], "--timeout — must be 0.1..3600, not -1"],
    [["bot", "h", "4000", "--strategy", "best"], "--strategy — must be random or greedy, not 'best'"],
    [["serve", "--compat", "cs50"], "--compat — must be cs50-2021, not 'cs50'"],
    [["serve", "--variant", "rob"], "--variant — must be classic or steal, not 'rob'"],
    [["serve", "--log-level", "loud"], "--log-level — must be debug, info, warning, error or none, not 'loud'"],
    [["serve", "maps/main.txt", "12345678901234567"], "SEED — must be 0..9007199254740991, not 12345678901234567"],
    [["serve", "maps/main.txt", "-1"], "SEED — must be 0..9007199254740991, not -1"],
    [["serve", "maps/small.txt", "1", "2"], "unexpected argument '2' — try 'nuggets help serve'"],
    [["join", "localhost", "4000", "   "], "NAME — must not be empty or blank"],
    [["play", ""], "NAME — must not be empty or blank"],
    [["bot", "h", "4000", "--name", " "], "--name — must not be empty or blank"],
    [["join", "localhost", "4000", "Eve", "--log", "/nonexistent/x.log"], "/nonexistent/x.log — cannot write it: no such file or folder"],
    [["serve", "no-such-map.txt"], "no-such-map.txt — cannot read the map: no such file or folder"],
    [["serve", "--map", "no-such-map.txt"], "no-such-map.txt — cannot read the map: no such file or folder"],
    [["serve", "maps/small.txt", "--map", "maps/main.txt"], "--map — cannot be used with MAP: give one"],
    [["serve", "1", "--seed", "2", "--map", "maps/main.txt"], "--map — cannot be used with MAP: give one"],
    [["serve", "--web", "99999"], `--web — "99999" is not a port (0 to 65535); write [HOST:]PORT, e.g. 8080, 0.0.0.0:8080 or [::1]:8080`],
    [["serve", "--record", tmpdir()], `${tmpdir()} — cannot write it: it is a folder`],
    [["bot", "nosuch.invalid", "4000"], "nosuch.invalid — unknown host"],
    [["serve", "--host", "nosuch.invalid"], "nosuch.invalid — unknown host"],
    [["replay", "no-such-recording.ndjson"], "no-such-recording.ndjson — cannot read the recording: no such file or folder"],
    [["replay", "x", "--as", "alice"], "--as — a player's letter (A..Z) or spectator, not 'alice'"]
  ]
  for (const [args, why] of cases) {
    it(`nuggets ${args.map((arg) => (arg.trim() === "" ? JSON.stringify(arg) : arg)).join(" ")}`, async () => {
      expect(await nuggets(...args)).toMatchObject({ code: 1, stdout: "", stderr: `nuggets: ${why}\n` })
    })
  }

  it("a port already in use suggests --port 0", async () => {
    const taken = dgram.createSocket("udp4")
    await new Promise<void>((resolve) => taken.bind(0, "127.0.0.1", resolve))
    try {
      const port = taken.address().port
      expect(await nuggets("serve", "--port", String(port), "--host", "127.0.0.1")).toMatchObject({
        code: 1,
        stdout: "",
        stderr: `nuggets: port ${port} is already in use — --port 0 picks a free one\n`
      })
    } finally {
      taken.close()
    }
  })
})

describe("no flag is ignored: a flag that cannot act refuses the command line, naming both flags", () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [["replay", "g.ndjson", "--web", "8082", "--cast", "x.cast"], "--cast — cannot be used with --web"],
    [["replay", "g.ndjson", "--check", "--cast", "y.cast"], "--cast — cannot be used with --check"],
    [["replay", "g.ndjson", "--cast", "y.cast", "--check"], "--check — cannot be used with --cast"],
    [["replay", "g.ndjson", "--check", "--as", "A"], "--as — cannot be used with --check"],
    [["replay", "g.ndjson", "--web", "0", "--speed", "2"], "--speed — cannot be used with --web"],
    [["replay", "g.ndjson", "--overwrite"], "--overwrite — only with --cast"],
    [["serve", "--overwrite"], "--overwrite — only with --record"],
    [["play", "--overwrite"], "--overwrite — only with --record"],
    [["serve", "--web-name", "nuggets.example"], "--web-name — only with --web"],
    [["play", "--web-name", "nuggets.example"], "--web-name — only with --web"],
    [["replay", "g.ndjson", "--web-name", "nuggets.example"], "--web-name — only with --web"],
    [["serve", "--web", "0", "--web-name", "not a name"], '--web-name — "not a name" is not a host name; write a name such as nuggets.example.org']
  ]
  for (const [args, why] of cases) {
    it(`nuggets ${args.join(" ")}`, async () => {
      expect(await nuggets(...args)).toMatchObject({ code: 1, stdout: "", stderr: `nuggets: ${why}\n` })
    })
  }

  it("serve, play and join take --log and --log-level; serve takes --map and --seed as well as MAP SEED", async () => {
    // Past the parser, each stops at the first thing it cannot do here: no terminal, a port taken.
    expect((await nuggets("join", "localhost", "4000", "--log-level", "debug", "--log", join(dir, "j.log"))).stderr)
      .toMatch(/^nuggets: join needs a terminal/)
    expect((await nuggets("play", "--log-level=debug", "--log", join(dir, "p.log"), "--map", "maps/small.txt", "--seed", "3")).stderr)
      .toMatch(/^nuggets: play needs a terminal/)
    expect((await nuggets("serve", "--log", join(dir, "s.log"), "--log-level", "warning", "--seed", "4", "--port", "70000")).stderr)
      .toBe("nuggets: --port — must be 0..65535, not 70000\n")
  })
})

describe("a user's file is never lost", () => {
  it("an output that exists is refused without --overwrite, and one that is an input always", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["serve", "--record", existing], `${existing} — already exists: --overwrite lets --record replace it`],
      [["play", "--record", existing], `${existing} — already exists: --overwrite lets --record replace it`],
      [["replay", "maps/main.txt", "--cast", existing], `${existing} — already exists: --overwrite lets --cast replace it`],
      [["replay", existing, "--cast", existing, "--overwrite"], `${existing} — it is the recording: --cast must not write over it`],
      [["serve", existing, "--record", existing, "--overwrite"], `${existing} — it is the map: --record must not write over it`],
      [["serve", "--map", `${dir}/../${dir.split("/").at(-1)}/existing.txt`, "--record", existing, "--overwrite"],
        `${existing} — it is the map: --record must not write over it`],
      [["serve", "--record", join(dir, "a"), "--log", join(dir, "a")], `${join(dir, "a")} — both --record and --log would write it`]
    ]
    for (const [args, why] of cases) expect(await nuggets(...args), args.join(" ")).toMatchObject({ code: 1, stdout: "", stderr: `nuggets: ${why}\n` })
    expect(readFileSync(existing, "utf8")).toBe("keep me\n")
  })
})

describe("as a process", () => {
  it("a bad command line exits 1 with one line on stderr; help exits 0 on stdout", async () => {
    const command = await nuggetsCommand()
    expect(await run([...command, "serve", "--bogus"])).toEqual({ code: 1, stdout: "", stderr: "nuggets: unknown option '--bogus' — try 'nuggets help serve'\n" })
    const help = await run([...command, "serve", "--log-level", "debug", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: nuggets serve \[options\] \[MAP \[SEED\]\]/)
  }, 30_000)

  it("play, join and replay without a terminal say so and exit 1, writing no screen", async () => {
    const command = await nuggetsCommand()
    const results = await Promise.all([
      run([...command, "play", "--port", "0"]),
      run([...command, "join", "localhost", "4000"]),
      run([...command, "replay", walk])
    ])
    expect(results[0]).toEqual({ code: 1, stdout: "", stderr: "nuggets: play needs a terminal for its input and output ('nuggets serve' runs a game without one)\n" })
    expect(results[1]).toEqual({ code: 1, stdout: "", stderr: "nuggets: join needs a terminal for its input and output ('nuggets bot' plays without one)\n" })
    expect(results[2]).toEqual({
      code: 1,
      stdout: "",
      stderr: "nuggets: replay needs a terminal for its input and output (--cast OUT writes a cast, --check checks it, " +
        "--web PORT shows it in a browser)\n"
    })
  }, 30_000)
})
