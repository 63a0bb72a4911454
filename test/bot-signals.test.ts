import { describe, expect, it } from "@effect/vitest"
import * as dgram from "node:dgram"
import type { Took } from "../src/core/life.js"
import { nuggetsCommand, Program } from "./cli/process.js"
import { startServer } from "./server/harness.js"
import { loadMap } from "./support.js"
import { owned } from "./owned.js"

/** A promise and the function that keeps it. */
const signal = <A = void>() => {
  let keep: (value: A) => void = () => {}
  const promise = new Promise<A>((resolve) => (keep = resolve))
  return { promise, keep }
}

/**
 * How long a wait here lasts before it is called a hang: the bots' own times (a second's
 * PLAY again, 3 s of Q) show in what they print, not in how long a busy machine took.
 */
const hangGuardMs = 20_000

/** Rejects after `ms`, naming what did not happen: every wait has a deadline. */
const within = <A>(ms: number, what: string, promise: Promise<A>): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

const startBots = async (port: number, count: number) => {
  const bots = Program.start([...await nuggetsCommand(), "bot", "127.0.0.1", String(port), "--count", String(count), "--rate", "0.5", "--seed", "1"])
  owned(bots, (bots) => bots.child.kill("SIGKILL"))
  return bots
}

describe("nuggets bot and SIGTERM, as a program", () => {
  it("on a healthy server: each bot says Q, the server's QUIT comes, and the program is gone at once", async () => {
    const keyed = signal()
    const quits: Array<Took> = []
    const quitted = signal()
    const server = await startServer({
      map: loadMap("small.txt"),
      seed: 4,
      observe: (handled) => {
        if (handled.request._tag !== "Key") return
        if (handled.request.key !== "Q") return keyed.keep()
        quits.push(handled)
        if (quits.length === 2) quitted.keep()
      }
    })
    owned(server, (server) => server.stop())
    const bots = await startBots(server.port, 2)
    // A key pressed: a bot has its view, so it is in the game.
    await within(hangGuardMs, "a bot's first key", keyed.promise)
    bots.child.kill("SIGTERM")
    await within(hangGuardMs, "both bots' KEY Q", quitted.promise)
    // Our server's QUIT answers the Q at once: the program has nothing left to wait for.
    expect(await within(hangGuardMs, "the program's exit after SIGTERM", bots.exited)).toBe(0)
    expect(bots.stderr).toMatch(/bot-1: told to quit: Thanks for playing!/)
    expect(bots.stderr).toMatch(/bot-2: told to quit: Thanks for playing!/)
  }, 60_000)

  it("on a server whose port has closed: gone at once, each bot saying so once", async () => {
    // A server that lets each bot in, then dies without a word when both have pressed a key.
    const socket = dgram.createSocket("udp4")
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve))
    let open = true
    const closeSocket = () =>
      open ? new Promise<void>((resolve) => socket.close(() => {
        open = false
        resolve()
      })) : Promise.resolve()
    owned(socket, () => closeSocket())
    const pressed = new Set<number>()
    const bothPressed = signal()
    socket.on("message", (data, from) => {
      const text = data.toString("latin1")
      const reply = (...texts: ReadonlyArray<string>) => texts.forEach((each) => socket.send(each, from.port, from.address))
      if (text.startsWith("PLAY ")) reply("OK A", "GRID 3 5", "GOLD 0 0 250", "DISPLAY\n+---+\n|.@.|\n+---+\n")
      if (/^KEY [hl]$/.test(text) && pressed.add(from.port).size === 2) bothPressed.keep()
    })
    const bots = await startBots(socket.address().port, 2)
    await within(hangGuardMs, "both bots' first key", bothPressed.promise)
    await closeSocket()
    bots.child.kill("SIGTERM")
    expect(await within(hangGuardMs, "the program's exit after SIGTERM", bots.exited)).toBe(0)
    expect(bots.stderr.match(/the server's port is closed/g)).toHaveLength(2)
  }, 60_000)
})

describe("nuggets bot and a port where nothing listens", () => {
  it("says so at once, in one line, without waiting out its --timeout", async () => {
    const socket = dgram.createSocket("udp4")
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve))
    const port = socket.address().port
    await new Promise<void>((resolve) => socket.close(() => resolve()))
    // Its --timeout an hour: ended within the test's time, it did not wait it out.
    const bots = Program.start([...await nuggetsCommand(), "bot", "127.0.0.1", String(port), "--count", "2", "--timeout", "3600"])
    owned(bots, (bots) => bots.child.kill("SIGKILL"))
    expect(await within(hangGuardMs, "the program's exit", bots.exited)).toBe(1)
    // One line for the one cause: no raw system error, no warning per bot.
    expect(bots.stderr.trim().split("\n").filter((line) => !/^\S+ INFO /.test(line))).toEqual([
      `nuggets: 127.0.0.1:${port} — no Nuggets server there (port unreachable)`
    ])
  }, 60_000)
})
