import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { printedPort, udpPortsOf } from "../src/kit/check-server/launch.js"
import { nuggets } from "./client/tmux.js"
import { mainMap, outcomes, resultOf, run, statuses } from "./kit/checkServer.js"

/**
 * `check server -- COMMAND`: the checker starts the server itself, finds its port, starts it
 * afresh where a check needs a fresh game and after a crash, and names the datagram that
 * killed it, with a line to send it again. Against our own server, and a server that dies
 * of one datagram (test/kit/fragile-server.mjs).
 */

const fragile = fileURLToPath(new URL("./kit/fragile-server.mjs", import.meta.url))
const serve = [...nuggets, "serve", "{map}", "{seed}", "--host", "127.0.0.1"]
/** A server that dies of the awkward name names sends (`PLAY Bell\x07...`). */
const diesOfTheLongName = [process.execPath, fragile, "^PLAY Bell", "--", ...serve]

const started = (command: ReadonlyArray<string>, options: Parameters<typeof run>[1] = {}) =>
  run(0, { target: { _tag: "Command", command, map: `${process.cwd()}/maps/main.txt`, seed: 3 }, ...options })

describe.concurrent("check server -- COMMAND", () => {
  it.scopedLive("our own server, 2021 dialect, with --map: every check passes, on servers it started afresh for player-limit and bad-messages", () =>
    Effect.gen(function*() {
      const report = yield* started([...serve, "--compat", "cs50-2021"], { map: mainMap })
      expect(report.checks.filter((check) => check.status !== "pass")).toEqual([])
      expect(report.about[0]).toMatch(/^dialect: 2021 \(guessed: it answered "ERROR unknown keystroke"\)$/)
      expect(report.about[2]).toMatch(/^server: started as .* serve \/.*\/maps\/main\.txt 3 --host 127\.0\.0\.1 --compat cs50-2021; started afresh for player-limit, for bad-messages$/)
      expect(resultOf(report, "visibility").notes[0]).toMatch(/held against the 2021 rule/)
      expect(resultOf(report, "server-exit").notes[0]).toMatch(/^it exited \(exit status 0\)/)
    }), 180_000)

  it.scopedLive("a server that dies of a datagram, without --map: the check that sent it fails, naming it, proven on a fresh server; every other check is judged on servers started afresh, those that need the map not run", () =>
    Effect.gen(function*() {
      const report = yield* started(diesOfTheLongName)
      const names = resultOf(report, "names")
      expect(names.status).toBe("fail")
      expect(names.failures).toEqual([
        expect.objectContaining({
          what: `the server died after it was sent "PLAY Bell\\x07and-a-very-long-name-and-a-very-long-name-and-a-very-lo" from a client that never joined: its process ended (exit status 70)`,
          sent: `"PLAY Bell\\x07and-a-very-long-name-and-a-very-long-name-and-a-very-lo" from a client that never joined`,
          detail: [
            "sent alone, from one client, to a server started afresh, these datagrams kill it again:",
            `python3 -c 'import socket,time;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);[(s.sendto(m,("127.0.0.1",PORT)),time.sleep(0.2)) for m in [b"PLAY Bell\\x07and-a-very-long-name-and-a-very-long-name-and-a-very-lo"]]'   (PORT: the fresh server's port)`
          ]
        })
      ])
      // The check under way when it died is run again on a fresh server, and passes: nothing else is blamed.
      expect(report.checks.filter((check) => check.status === "fail").map((check) => check.name)).toEqual(["names"])
      expect(report.checks.filter((check) => check.status === "not run").map((check) => check.notRun)).toEqual(Array(3).fill("it needs --map (the map the server was started with)"))
      expect(report.about[2]).toMatch(/started afresh after it died, for unknown-keys/)
    }), 180_000)

  it.scopedLive("a server killed by a key from a player that quit, which ends normally (exit 0) once its last player has quit: the fresh server's normal exit proves nothing", () =>
    Effect.gen(function*() {
      const report = yield* started([process.execPath, fragile, "^KEY", "--from-quitters", "--", ...serve], { only: "quit" })
      const quit = resultOf(report, "quit")
      expect(quit.failures).toEqual([
        expect.objectContaining({
          what: `the server died after it was sent "KEY l" from player B: its process ended (killed by SIGABRT)`,
          detail: [
            "sent alone to a server started afresh, these datagrams did not kill it: it exited normally (exit status 0), as at its game's end; the cause may be an earlier datagram, or another client's; what was sent:",
            `python3 -c 'import socket,time;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);[(s.sendto(m,("127.0.0.1",PORT)),time.sleep(0.2)) for m in [b"PLAY leaver",b"KEY Q",b"KEY l"]]'   (PORT: the fresh server's port)`
          ]
        })
      ])
    }), 120_000)

  it.scopedLive("a server that stops hearing its first player's keys once another joins: its moves go wrong, and game-over, stuck, is played again from its own start on a fresh server, and passes", () =>
    Effect.gen(function*() {
      const report = yield* started([process.execPath, fragile, "(?!)", "--deafens", "^PLAY leaver", "--", ...serve])
      expect(resultOf(report, "game-over")).toMatchObject({ status: "pass", failures: [] })
      expect(report.about[2]).toMatch(/started afresh for game-over \(its game could not be played to its end: three moves in a row went wrong\)/)
      expect(resultOf(report, "quit").status).toBe("fail")
    }), 180_000)

  it.scopedLive("the same server at HOST PORT: the check that sent the datagram fails; the one under way is not run, nor is the rest", () =>
    Effect.gen(function*() {
      const child = yield* Effect.acquireRelease(
        Effect.sync(() => spawn(diesOfTheLongName[0]!, [...diesOfTheLongName.slice(1).map((word) => word.replace("{map}", "maps/main.txt").replace("{seed}", "3"))], { stdio: ["ignore", "pipe", "ignore"] })),
        (child) => Effect.sync(() => void child.kill())
      )
      const port = yield* Effect.async<number>((resume) => {
        child.stdout.setEncoding("utf8").once("data", (line: string) => resume(Effect.succeed(Number(/port (\d+)/.exec(line)?.[1]))))
      })
      const report = yield* run(port)
      expect(resultOf(report, "names").failures[0]?.what ?? outcomes(report)).toMatch(/^the server died after it was sent "PLAY Bell\\x07.*" from a client that never joined: its port closed/)
      expect(resultOf(report, "unknown-keys")).toMatchObject({ status: "not run", notRun: expect.stringMatching(/^the server died before it could be judged \(of what names sent; .*\); run again with --only unknown-keys on a fresh server$/) })
      expect(report.checks.filter((check) => check.status === "fail").map((check) => check.name)).toEqual(["names"])
      expect(statuses(report)).toMatchObject({ "join-spectator": "pass", "join-player": "pass", "move-keys": "not run", "game-over": "not run" })
    }), 60_000)

  it.scopedLive("a server that ignores SIGTERM is ended all the same once the check is done: SIGKILL a second later", () =>
    Effect.gen(function*() {
      // Says its port as C servers do, answers nothing, and outlives SIGTERM.
      const deaf = "process.on('SIGTERM',()=>{});const s=require('dgram').createSocket('udp4');" +
        "s.bind(0,'127.0.0.1',()=>console.error(`message_init: ready at port '${s.address().port}'`))"
      const report = yield* started([process.execPath, "-e", deaf], { only: "join-spectator", answerMs: 300, checkMs: 2000 })
      expect(resultOf(report, "join-spectator").status).toBe("fail")
    }), 20_000)

  it.scopedLive("a command that ends before it opens a port: one failure saying why, the rest not run", () =>
    Effect.gen(function*() {
      const report = yield* started(["sh", "-c", "echo 'no map — given' >&2; exit 3"])
      expect(resultOf(report, "join-spectator").failures[0]!.what).toBe("the server could not be started: sh ended (exit status 3) before it opened a UDP port; it said: no map — given")
      expect(report.checks.filter((check) => check.status !== "not run").map((check) => check.name)).toEqual(["join-spectator"])
    }))
})

describe("finding a server's port", () => {
  it("as C servers print it: the support library's line on stderr, else the first number on stdout", () => {
    expect(printedPort("", "message_init: ready at port '4567'\n")).toBe(4567)
    expect(printedPort("Ready to play, waiting at port 5001\n", "")).toBe(5001)
    expect(printedPort("waiting on port 45123 for contact....", "message_init: ready at port '45123'")).toBe(45123)
    expect(printedPort("serverPort=33333", "")).toBe(33333)
    expect(printedPort("no number here", "")).toBeUndefined()
    expect(printedPort("70000 is no port", "")).toBeUndefined()
  })

  it.live.skipIf(process.platform !== "linux")("as the process opened it: the UDP port of the process or a child of it, from /proc", () =>
    Effect.gen(function*() {
      // A shell that starts a child which binds a UDP socket and says nothing.
      const code = "const s=require('dgram').createSocket('udp4');s.bind(0,'127.0.0.1',()=>process.send(s.address().port))"
      const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "ignore", "ignore", "ipc"] })
      const port = yield* Effect.async<number>((resume) => void child.once("message", (bound) => resume(Effect.succeed(Number(bound)))))
      const quiet = spawn("sleep", ["30"])
      try {
        expect(udpPortsOf(child.pid!)).toEqual([port])
        expect(udpPortsOf(quiet.pid!)).toEqual([])
      } finally {
        child.kill()
        quiet.kill()
      }
    }))
})
