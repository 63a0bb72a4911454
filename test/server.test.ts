// The server over real UDP, message by message (about 360 lines): one file, as every case plays through the same harness.
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { readFileSync } from "node:fs"
import { find, firstStepToward, gridLines } from "./server/walk.js"
import { rules2019 } from "../src/core/rules.js"
import { parseMap } from "../src/core/map.js"
import { mapsDir } from "./support.js"
import { collectAllGold, gridOf, ownedClient as client, ownedServer as serve, TestClient } from "./server/harness.js"

const mapOf = (file: string) => Either.getOrThrow(parseMap(readFileSync(mapsDir + file, "utf8")))
const main = mapOf("main.txt")
const small = mapOf("small.txt")


/** PLAY, and the four answers the spec promises, in order. */
const joinAs = async (port: number, name: string) => {
  const c = await client(port)
  c.send(`PLAY ${name}`)
  const ok = await c.next()
  expect(ok).toMatch(/^OK [A-Z]$/)
  expect(await c.next()).toMatch(/^GRID \d+ \d+$/)
  const gold = await c.next()
  expect(gold).toMatch(/^GOLD 0 0 \d+$/)
  const display = await c.next()
  expect(display.startsWith("DISPLAY\n")).toBe(true)
  return { client: c, letter: ok.slice(3), display: gridOf(display) }
}

const spectator = async (port: number) => {
  const c = await client(port)
  c.send("SPECTATE")
  expect(await c.next()).toMatch(/^GRID \d+ \d+$/)
  expect(await c.next()).toMatch(/^GOLD 0 0 \d+$/)
  const display = gridOf(await c.next())
  return { client: c, display }
}

describe("serve: the protocol over loopback UDP", () => {
  it("a player joins: OK A, GRID, GOLD 0 0 250, and a DISPLAY of NR lines of NC chars with '@'", async () => {
    const { port } = await serve({ map: main, seed: 3 })
    const player = await joinAs(port, "Alice")
    expect(player.letter).toBe("A")
    expect(player.client.received.slice(0, 3)).toEqual(["OK A", "GRID 21 79", "GOLD 0 0 250"])
    const lines = gridLines(player.display)
    expect(lines.length).toBe(21)
    expect(lines.every((line) => line.length === 79)).toBe(true)
    expect(find(lines, (ch) => ch === "@").length).toBe(1)
  })

  it("a spectator sees everything; the mover and the spectator get a DISPLAY when anyone moves", async () => {
    const { port } = await serve({ map: main, seed: 3 })
    const a = await joinAs(port, "Alice")
    const watcher = await spectator(port)
    const lines = gridLines(watcher.display)
    expect(find(lines, (ch) => ch === "A").length).toBe(1)
    expect(find(lines, (ch) => ch === "*").length).toBeGreaterThanOrEqual(10)
    // Step towards the nearest spot, gold or not.
    const at = find(lines, (ch) => ch === "A")[0]!
    const key = firstStepToward(lines, at, () => true)!
    a.client.send(`KEY ${key}`)
    let mine = await a.client.next()
    if (mine.startsWith("GOLD")) mine = await a.client.next()
    expect(mine.startsWith("DISPLAY\n")).toBe(true)
    const theirs = await watcher.client.nextStarting("DISPLAY\n")
    expect(find(gridLines(gridOf(theirs)), (ch) => ch === "A")).not.toEqual([at])
  })

  it("collecting gold: GOLD n p r to the collector, GOLD 0 p r to other players, GOLD 0 0 r to the spectator", async () => {
    const { port } = await serve({ map: main, seed: 5 })
    const a = await joinAs(port, "Alice")
    const b = await joinAs(port, "Bob")
    const watcher = await spectator(port)
    let view = gridLines(watcher.display)
    for (let steps = 0; steps < 200; steps++) {
      const key = firstStepToward(view, find(view, (ch) => ch === "A")[0]!, (ch) => ch === "*")!
      a.client.send(`KEY ${key}`)
      // The spectator is told of every move: GOLD first when nuggets were taken.
      let watcherGold: string | undefined
      let shown = await watcher.client.next()
      if (shown.startsWith("GOLD")) [watcherGold, shown] = [shown, await watcher.client.next()]
      expect(shown.startsWith("DISPLAY\n")).toBe(true)
      view = gridLines(gridOf(shown))
      // A's answer: the DISPLAY with '@' where the spectator now sees A (B's arrival may come before it).
      const at = find(view, (ch) => ch === "A")[0]!
      let gold: string | undefined
      for (;;) {
        const message = await a.client.next()
        if (message.startsWith("GOLD")) gold = message
        else if (message.startsWith("DISPLAY\n") && gridLines(gridOf(message))[at.row]![at.col] === "@") break
        else gold = undefined
      }
      if (gold !== undefined) {
        const [, n, p, r] = gold.split(" ").map(Number) as [number, number, number, number]
        expect(n).toBeGreaterThan(0)
        expect(p).toBe(n)
        expect(r).toBe(250 - n)
        expect(watcherGold).toBe(`GOLD 0 0 ${r}`)
        // B sees A's moves only within its sight; GOLD it is told in any case, and a DISPLAY with it.
        expect(await b.client.nextStarting("GOLD")).toBe(`GOLD 0 0 ${r}`)
        expect((await b.client.next()).startsWith("DISPLAY\n")).toBe(true)
        return
      }
      expect(watcherGold).toBeUndefined()
    }
    throw new Error("never reached gold")
  })

  it("moving onto another player swaps the two", async () => {
    const { port } = await serve({ map: main, seed: 8 })
    const a = await joinAs(port, "Alice")
    const b = await joinAs(port, "Bob")
    const watcher = await spectator(port)
    let view = gridLines(watcher.display)
    for (let steps = 0; steps < 300; steps++) {
      const posA = find(view, (ch) => ch === "A")[0]!
      const posB = find(view, (ch) => ch === "B")[0]!
      const key = firstStepToward(view, posA, (ch) => ch === "B")!
      a.client.send(`KEY ${key}`)
      view = gridLines(gridOf(await watcher.client.nextStarting("DISPLAY")))
      const nowA = find(view, (ch) => ch === "A")[0]!
      if (nowA.row === posB.row && nowA.col === posB.col) {
        expect(find(view, (ch) => ch === "B")[0]).toEqual(posA)
        // B, who was moved, is sent a DISPLAY (after any that showed A coming): itself where A was, and A where it was.
        let bView: ReadonlyArray<string>
        do bView = gridLines(gridOf(await b.client.nextStarting("DISPLAY")))
        while (bView[posA.row]![posA.col] !== "@")
        expect(bView[posB.row]![posB.col]).toBe("A")
        return
      }
    }
    throw new Error("A never reached B")
  })

  it("26 players fill the game and the 27th is refused with NO", async () => {
    const { port } = await serve({ map: main, seed: 1 })
    const letters: Array<string> = []
    for (let i = 0; i < 26; i++) letters.push((await joinAs(port, `p${i}`)).letter)
    expect(letters.join("")).toBe("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    const late = await client(port)
    late.send("PLAY Latecomer")
    expect(await late.next()).toBe("NO Sorry - the game is full; no more than 26 players can join.")
  })

  it("quitting: QUIT Thanks for playing! / Thanks for watching!, and the others see the player gone", async () => {
    const { port } = await serve({ map: main, seed: 2 })
    const a = await joinAs(port, "Alice")
    const watcher = await spectator(port)
    a.client.send("KEY Q")
    expect(await a.client.next()).toBe("QUIT Thanks for playing!")
    const after = gridLines(gridOf(await watcher.client.next()))
    expect(find(after, (ch) => ch === "A")).toEqual([])
    watcher.client.send("KEY Q")
    expect(await watcher.client.next()).toBe("QUIT Thanks for watching!")
  })

  it("a new spectator replaces the old one, who is told to quit", async () => {
    const { port } = await serve({ map: main, seed: 2 })
    const first = await spectator(port)
    await spectator(port)
    expect(await first.client.next()).toBe("QUIT You have been replaced by a new spectator.")
  })

  it("answers what it cannot do with NO, to that client only, and changes nothing", async () => {
    const { port } = await serve({ map: main, seed: 2 })
    const a = await joinAs(port, "Alice")
    const watcher = await spectator(port)
    const stranger = await client(port)
    const cases: Array<[TestClient, string, string]> = [
      [a.client, "KEY x", "NO unknown keystroke"],
      [a.client, "SPECTATE", "NO you are already playing as A"],
      [stranger, "KEY h", "NO you have not joined this game; send PLAY name or SPECTATE first"],
      [watcher.client, "KEY h", "NO unknown keystroke"],
      [a.client, "KEY", "NO KEY takes exactly one keystroke, got none"],
      [a.client, "KEY hj", "NO KEY takes exactly one keystroke, got \"hj\""],
      [watcher.client, "PLAY Watcher", "NO you are already the spectator"]
    ]
    for (const [who, message, answer] of cases) {
      who.send(message)
      expect(await who.next()).toBe(answer)
    }
    // Nothing else went to anyone: the next thing each receives answers a fresh request.
    a.client.send("KEY ?")
    expect(await a.client.next()).toBe("NO unknown keystroke")
    watcher.client.send("KEY ?")
    expect(await watcher.client.next()).toBe("NO unknown keystroke")
  })

  it("an empty name gets QUIT with a reason", async () => {
    const { port } = await serve({ map: main, seed: 2 })
    const c = await client(port)
    c.send("PLAY ")
    expect(await c.next()).toBe("QUIT Sorry - you must provide player's name.")
    c.send("PLAY")
    expect(await c.next()).toBe("QUIT Sorry - you must provide player's name.")
  })

  it("survives odd datagrams: empty, 65507 bytes, invalid UTF-8, no space, lower case, CRLF", async () => {
    const { port } = await serve({ map: main, seed: 2 })
    const a = await joinAs(port, "Alice")
    const odd: Array<string | Uint8Array> = [
      new Uint8Array(0),
      new Uint8Array(65507).fill(0x41),
      Uint8Array.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x4b, 0x45, 0x59]),
      "HELLO",
      "play Bob",
      "key h",
      "GAMEOVER\nnothing",
      "NO thanks"
    ]
    for (const datagram of odd) a.client.send(datagram)
    // Ignored, not answered: the next answer is to this probe.
    a.client.send("KEY ?")
    expect(await a.client.next()).toBe("NO unknown keystroke")
    // A trailing line end does not spoil a message.
    a.client.send("KEY Q\r\n")
    expect(await a.client.next()).toBe("QUIT Thanks for playing!")
  })

  it("plays a whole game on the small map to GAMEOVER, sent to every player and the spectator", async () => {
    const server = await serve({ map: small, seed: 11 })
    const a = await joinAs(server.port, "Alice")
    const b = await joinAs(server.port, "Bob")
    const watcher = await spectator(server.port)
    const gameOver = await collectAllGold(a.client, watcher.client, watcher.display)
    const result = await server.result
    expect(gameOver).toBe(`GAMEOVER\n${result.summary}`)
    expect(result.summary).toBe("A   250 Alice\nB     0 Bob\n")
    expect(await a.client.nextStarting("GAMEOVER")).toBe(gameOver)
    expect(await b.client.nextStarting("GAMEOVER")).toBe(gameOver)
  }, 30_000)

  it("--compat cs50-2021: ERROR for errors, QUIT for a full game, QUIT GAME OVER: at the end", async () => {
    const server = await serve({ map: small, seed: 11, dialect: "2021" })
    const a = await joinAs(server.port, "Alice")
    a.client.send("KEY x")
    expect(await a.client.next()).toBe("ERROR unknown keystroke")
    for (let i = 1; i < 26; i++) await joinAs(server.port, `p${i}`)
    const late = await client(server.port)
    late.send("PLAY Late")
    expect(await late.next()).toBe("QUIT Game is full: no more players can join.")
    const watcher = await spectator(server.port)
    const gameOver = await collectAllGold(a.client, watcher.client, watcher.display)
    expect(gameOver).toBe(`QUIT GAME OVER:\n${(await server.result).summary}`)
  }, 30_000)
})

describe("serve --variant steal, over loopback UDP", () => {
  it("walking onto a richer player takes 10% of its purse: GOLD n p r to the thief, GOLD 0 p r to the victim", async () => {
    const server = await serve({ map: small, seed: 11, rules: { ...rules2019, variant: "steal" } })
    const a = await joinAs(server.port, "Alice")
    const b = await joinAs(server.port, "Bob")
    const watcher = await spectator(server.port)
    let view = gridLines(watcher.display)
    /** Reads past what a client heard of others' moves: an unknown key's answer comes after all of it. */
    const catchUp = async (client: TestClient) => {
      client.send("KEY ?")
      await client.nextStarting("NO unknown keystroke")
    }
    /** Moves a player one step toward the nearest `goal`; returns what it was told up to its DISPLAY. */
    const stepToward = async (mover: TestClient, letter: string, goal: string) => {
      mover.send(`KEY ${firstStepToward(view, find(view, (ch) => ch === letter)[0]!, (ch) => ch === goal)!}`)
      const told: Array<string> = []
      for (;;) {
        const message = await mover.next()
        if (message.startsWith("DISPLAY")) break
        told.push(message)
      }
      view = gridLines(gridOf(await watcher.client.nextStarting("DISPLAY")))
      return told
    }
    const gold = (message: string) => message.split(" ").slice(1).map(Number) as [number, number, number]
    let purseA = 0
    let remaining = 250
    await catchUp(a.client)
    while (purseA < 10) {
      for (const message of await stepToward(a.client, "A", "*")) if (message.startsWith("GOLD")) [, purseA, remaining] = gold(message)
    }
    await catchUp(b.client)
    for (let steps = 0; steps < 200; steps++) {
      const told = (await stepToward(b.client, "B", "A")).filter((message) => message.startsWith("GOLD"))
      if (told.length === 0) continue
      const [collected, purse, left] = gold(told[0]!)
      if (left !== remaining) {
        remaining = left
        continue
      }
      const stolen = Math.floor(purseA / 10)
      expect(stolen).toBeGreaterThan(0)
      expect(collected).toBe(stolen)
      expect(purse).toBeGreaterThanOrEqual(stolen)
      // Alice heard of any gold Bob found on the way first; her purse changes only now.
      expect(await a.client.nextStarting(`GOLD 0 ${purseA - stolen} `)).toBe(`GOLD 0 ${purseA - stolen} ${remaining}`)
      return
    }
    throw new Error("Bob never reached Alice")
  }, 30_000)
})

describe("serve on a network that loses datagrams", () => {
  it("answers a repeated PLAY with the same OK, GRID and GOLD, and a fresh DISPLAY", async () => {
    const { port } = await serve({ map: main, seed: 2 })
    const a = await joinAs(port, "Alice")
    a.client.send("PLAY Alice")
    expect([await a.client.next(), await a.client.next(), await a.client.next()]).toEqual(["OK A", "GRID 21 79", "GOLD 0 0 250"])
    expect(gridOf(await a.client.next())).toBe(a.display)
  })

  it("answers Ctrl-L with OK, GOLD and DISPLAY", async () => {
    const { port } = await serve({ map: main, seed: 2 })
    const a = await joinAs(port, "Alice")
    a.client.send("KEY \f")
    expect(await a.client.next()).toBe("OK A")
    expect(await a.client.next()).toBe("GOLD 0 0 250")
    expect(gridOf(await a.client.next())).toBe(a.display)
  })

  it("says GAMEOVER three times, and again to a player who asks during the next moments", async () => {
    const server = await serve({ map: small, seed: 11, linger: "1 second" })
    const a = await joinAs(server.port, "Alice")
    const b = await joinAs(server.port, "Bob")
    const watcher = await spectator(server.port)
    const gameOver = await collectAllGold(a.client, watcher.client, watcher.display)
    for (let copy = 0; copy < 3; copy++) expect(await b.client.nextStarting("GAMEOVER")).toBe(gameOver)
    b.client.send("KEY h")
    expect(await b.client.next()).toBe(gameOver)
    await server.result
    expect(b.client.received.filter((message) => message.startsWith("GAMEOVER"))).toHaveLength(4)
  }, 30_000)

  it("says QUIT three times when shutting down, and to a replaced spectator", async () => {
    const server = await serve({ map: main, seed: 2 })
    const a = await joinAs(server.port, "Alice")
    const first = await spectator(server.port)
    await spectator(server.port)
    for (let copy = 0; copy < 3; copy++) {
      expect(await first.client.nextStarting("QUIT")).toBe("QUIT You have been replaced by a new spectator.")
    }
    await server.stop()
    for (let copy = 0; copy < 3; copy++) expect(await a.client.nextStarting("QUIT")).toBe("QUIT server shutting down")
  })
})

describe("serve on a map that breaks the spec's rules", () => {
  it("plays maps/cramped.txt (12 room spots, a passage at a corner): one pile, and NO when no room spot is free", async () => {
    const server = await serve({ map: mapOf("cramped.txt"), seed: 4 })
    const players = []
    for (let i = 0; i < 11; i++) players.push(await joinAs(server.port, `p${i}`))
    const late = await client(server.port)
    late.send("PLAY Late")
    expect(await late.next()).toBe("NO Sorry - there is no empty room spot left to drop a new player on.")
    const watcher = await spectator(server.port)
    expect(find(gridLines(watcher.display), (ch) => ch === "*")).toHaveLength(1)
    const gameOver = await collectAllGold(players[0]!.client, watcher.client, watcher.display)
    expect(gameOver).toMatch(/^GAMEOVER\nA   250 p0\n/)
  }, 30_000)
})
