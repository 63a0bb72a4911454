import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { nuggetsCommand, projectDir, run } from "./cli/process.js"
import { nuggets } from "./client/tmux.js"
import { check, failing, toy } from "./kit/checkClient.js"

/**
 * `check client` against our own `join` (every check passes) and against a toy client
 * written for these tests, right by default (every check passes too: the checker is not
 * tied to our client). The toy client wrong on purpose is in kit-check-client-bugs.test.ts.
 */

describe.concurrent("check client against our own client and a right toy client: every check passes", () => {
  it.live("nuggets join, 2019 dialect", () =>
    Effect.gen(function*() {
      const report = yield* check(nuggets.concat("join"))
      expect(failing(report)).toEqual([])
      expect(report.checks).toHaveLength(14)
    }), 120_000)

  it.live("nuggets join, 2021 dialect", () =>
    Effect.gen(function*() {
      expect(failing(yield* check(nuggets.concat("join"), { dialect: "2021" }))).toEqual([])
    }), 120_000)

  it.live("the toy client, with its host, port and name put where the command says", () =>
    Effect.gen(function*() {
      const report = yield* check([process.execPath, toy, "{host}", "{port}", "{name}"])
      expect(failing(report)).toEqual([])
      expect(report.about[1]).toMatch(/toy-client\.mjs 127\.0\.0\.1 PORT NAME 2>\(a file of the checker's\), in a terminal of 80 x 24/)
    }), 120_000)
})


describe("nuggets check client on the command line", () => {
  it.live("without tmux: one line saying how to get it, exit 1", () =>
    Effect.gen(function*() {
      const result = yield* Effect.promise(async () =>
        run([...(await nuggetsCommand()), "check", "client", "--", "true"], { cwd: projectDir, env: { ...process.env, PATH: "/nonexistent" } })
      )
      expect(result).toEqual({ code: 1, stdout: "", stderr: "nuggets: check client needs tmux: apt-get install tmux\n" })
    }), 60_000)

  it.live("with no command after --: told what is missing", () =>
    Effect.gen(function*() {
      const result = yield* Effect.promise(async () => run([...(await nuggetsCommand()), "check", "client"], { cwd: projectDir }))
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/^nuggets: COMMAND — missing; try 'nuggets help check client'\n$/)
    }), 60_000)
})
