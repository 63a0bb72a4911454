import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { nuggetsCommand, projectDir, run } from "./cli/process.js"

/** The command line as a new user meets it: every command's help, and the bad inputs people type. */

const nuggets = async (...args: ReadonlyArray<string>) => run([...(await nuggetsCommand()), ...args], { cwd: projectDir })
const { version } = JSON.parse(readFileSync(join(projectDir, "package.json"), "utf8")) as { version: string }

describe("help and version", () => {
  it("--version, -V, and help [command] work; help is plain text when not on a terminal", async () => {
    for (const args of [["--version"], ["-V"]]) expect(await nuggets(...args)).toMatchObject({ code: 0, stdout: `nuggets ${version}` })
    const top = await nuggets("help")
    expect(top.code).toBe(0)
    expect(top.stdout).toMatch(/^Usage: nuggets <command>/)
    for (const command of ["play", "serve", "join", "bot", "replay", "map"]) expect(top.stdout).toMatch(new RegExp(`^  ${command} `, "m"))
    expect(top.stdout).not.toContain("\u001b")
    expect((await nuggets("help", "map", "check")).stdout).toMatch(/^Usage: nuggets map check FILE/)
  }, 60_000)

  it("every command's help names it in full, gives each option a description and its default, and lists the keys where one plays", async () => {
    for (const command of [["play"], ["serve"], ["join"], ["bot"], ["replay"], ["map", "check"]]) {
      const help = await nuggets(...command, "--help")
      expect(help.code, command.join(" ")).toBe(0)
      expect(help.stdout).toMatch(new RegExp(`^Usage: nuggets ${command.join(" ")} `))
      expect(help.stdout).not.toMatch(/user-defined piece of text|This setting is optional|--wizard|--completions/)
    }
    const join = (await nuggets("join", "--help")).stdout
    expect(join).toContain("--timeout S  seconds to wait for the server's first answer (default: 5)")
    expect(join).toMatch(/Keys:\n  h j k l +move left, down, up, right/)
    expect((await nuggets("bot", "--help")).stdout).toContain("(default: 2)")
    expect((await nuggets("play", "--help")).stdout).toContain("Ctrl-Z")
  }, 60_000)
})

describe("bad command lines: exit 1 and one line, nuggets: <what> — <why>", () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [["serve", "--bogus"], "unknown option '--bogus' — try 'nuggets help serve'"],
    [["serve", "-p", "5"], "unknown option '-p' — try 'nuggets help serve'"],
    [["serve", "--seed", "5"], "unknown option '--seed' — try 'nuggets help serve'"],
    [["serve", "--map", "maps/main.txt"], "unknown option '--map' — try 'nuggets help serve'"],
    [["serve", "--wizard"], "unknown option '--wizard' — try 'nuggets help serve'"],
    [["--bogus"], "unknown option '--bogus' — try 'nuggets help'"],
    [["-v"], "unknown option '-v' — try 'nuggets help'"],
    [["map", "foo"], "unknown command 'map foo' — try 'nuggets help map'"],
    [["help", "foo"], "unknown command 'foo' — try 'nuggets help'"],
    [["serve", "--port", "abc"], "--port — 'abc' is not a whole number"],
    [["serve", "--port", "1e3"], "--port — '1e3' is not a whole number"],
    [["serve", "--port", "0x10"], "--port — '0x10' is not a whole number"],
    [["serve", "--port", "70000"], "--port — must be 0..65535, not 70000"],
    [["join", "localhost", "1e3"], "PORT — '1e3' is not a whole number"],
    [["bot", "localhost", "0"], "PORT — must be 1..65535, not 0"],
    [["serve", "maps/main.txt", "12345678901234567"], "SEED — must be 0..9007199254740991, not 12345678901234567"],
    [["join", "localhost", "4000", "   "], "NAME — must not be empty or blank"],
    [["play", ""], "NAME — must not be empty or blank"],
    [["join", "localhost", "4000", "Eve", "--log", "/nonexistent/x.log"], "/nonexistent/x.log — cannot write the log: no such file or folder"],
    [["serve", "no-such-map.txt"], "no-such-map.txt — cannot read the map: no such file or folder"],
    [["bot", "nosuch.invalid", "4000"], "nosuch.invalid — unknown host"],
    [["replay", "no-such-recording.ndjson"], "no-such-recording.ndjson — cannot read it: no such file or folder"]
  ]
  for (const [args, why] of cases) {
    it(`nuggets ${args.map((arg) => (arg.trim() === "" ? JSON.stringify(arg) : arg)).join(" ")}`, async () => {
      const result = await nuggets(...args)
      expect(result).toEqual({ code: 1, stdout: "", stderr: `nuggets: ${why}\n` })
    }, 30_000)
  }
})
