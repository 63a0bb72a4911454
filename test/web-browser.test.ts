/**
 * The page in a real browser: Debian's chromium, headless, driven by playwright-core,
 * against a real game server (UDP and web) in this process.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, Logger, LogLevel, Scope } from "effect"
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { systemProgram } from "../scripts/programs.js"
import { runBots } from "../src/bot/bots.js"
import type { GameState } from "../src/core/state.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
import { keysPerSecond } from "../src/server/keyLimit.js"
import { parseRecording } from "../src/recording/format.js"
import { startReplayWeb } from "../src/web/recorded.js"
import { collectAllGold, gridOf, startServer, TestClient } from "./server/harness.js"
import { loadMap, renderView } from "./support.js"
import { owned } from "./owned.js"
import { startWebGame } from "./web/harness.js"

/** What the tests touch in the page, inside functions that run there: the project's types have no DOM. */
declare const document: any
declare const Event: any
declare const WebSocket: any
declare const window: any
declare const performance: any
declare const getComputedStyle: any

const quiet = Logger.withMinimumLogLevel(LogLevel.None)
const main = loadMap("main.txt")

let browser: Browser
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: systemProgram("chromium"),
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]
  })
})
afterAll(() => browser?.close())

const game = async (options: Partial<Parameters<typeof startWebGame>[0]> = {}) =>
  owned(await startWebGame({ map: main, seed: 11, ...options }), (game) => game.stop())
const udpClient = async (port: number) => owned(await TestClient.open(port), (client) => client.close())
const open = async (url: string): Promise<Page> => {
  const page = owned(await browser.newPage({ viewport: { width: 1366, height: 768 } }), (page) => page.close())
  const problems: Array<string> = []
  page.on("pageerror", (error) => problems.push(String(error)))
  page.on("console", (message) => message.type() === "error" && problems.push(message.text()))
  // Checked as the test ends: the page's own errors fail it.
  owned(problems, (seen) => expect(seen.filter((text) => !text.includes("ERR_CONNECTION_REFUSED"))).toEqual([]))
  await page.goto(url)
  return page
}

const gridText = (page: Page) => page.$$eval("#grid div", (rows) => rows.map((row: any) => row.textContent).join("\n") + "\n")
const waitForGrid = (page: Page, expected: string) =>
  page.waitForFunction(
    (expected) => Array.from(document.querySelectorAll("#grid div"), (row: any) => row.textContent).join("\n") + "\n" === expected,
    expected,
    { timeout: 3000 }
  )
/** A view as the page frames it: the rows and columns that hold anything but blanks. */
const framedView = (view: string): string => {
  const rows = view.replace(/\n$/, "").split("\n")
  const held = rows.map((row, index) => ({ index, first: row.search(/\S/), last: row.trimEnd().length })).filter((row) => row.first >= 0)
  const left = Math.min(...held.map((row) => row.first))
  const right = Math.max(...held.map((row) => row.last))
  return rows.slice(held[0]!.index, held.at(-1)!.index + 1).map((row) => row.slice(left, right)).join("\n") + "\n"
}

/** The next message from `client` that satisfies `wanted`, skipping others. */
const nextWhere = async (client: TestClient, wanted: (message: string) => boolean) => {
  for (;;) {
    const message = await client.next()
    if (wanted(message)) return message
  }
}
const boardSize = (page: Page) =>
  page.evaluate(() => {
    const board = document.getElementById("board")
    const fontPx = parseFloat(document.getElementById("grid").style.fontSize)
    return { fontPx, scrollWidth: board.scrollWidth, clientWidth: board.clientWidth, scrollHeight: board.scrollHeight, clientHeight: board.clientHeight }
  }) as Promise<{ fontPx: number; scrollWidth: number; clientWidth: number; scrollHeight: number; clientHeight: number }>
const text = (page: Page, selector: string) => page.$eval(selector, (element) => element.textContent ?? "")
/** The body rows of a table, as the text of each cell. */
const tableText = (page: Page, selector: string): Promise<Array<Array<string>>> =>
  page.$$eval(`${selector} tbody tr`, (rows) => rows.map((row: any) => Array.from(row.cells, (cell: any) => cell.textContent)))
/** The final standings as the page should show them: most nuggets first, ties in letter order sharing the place. */
const rankedOf = (players: ReadonlyArray<{ readonly letter: string; readonly name: string; readonly purse: number }>) =>
  [...players]
    .sort((a, b) => b.purse - a.purse || a.letter.localeCompare(b.letter))
    .map((each, _, all) => ({ ...each, place: 1 + all.filter((other) => other.purse > each.purse).length }))

/** A move key that takes player `index` onto a room spot from where it stands. */
const openMove = (state: GameState, index: number): string => {
  const at = state.players[index]!.position
  const cols = state.map.cols
  const steps: Record<string, number> = { h: -1, l: 1, j: cols, k: -cols, y: -cols - 1, u: -cols + 1, b: cols - 1, n: cols + 1 }
  return ["h", "l", "j", "k", "y", "u", "b", "n"].find((key) => state.map.cells[at + steps[key]!] === 0x2e && !state.gold.has(at + steps[key]!))!
}

describe("the page in a browser", () => {
  it("shows the whole map as the spectator sees it, the roster and the nuggets left", async () => {
    const { host, port, url } = await game()
    const alice = await udpClient(port)
    alice.send("PLAY Alice")
    await alice.nextStarting("DISPLAY")
    const page = await open(url)
    await waitForGrid(page, framedView(renderView(host.state(), "spectator")))
    await page.waitForSelector("#roster tbody tr")
    const roster = await page.$$eval("#roster tbody tr", (rows) =>
      rows.map((row: any) => Array.from(row.cells, (cell: any) => cell.textContent)))
    expect(roster).toEqual([["A", "Alice", "0", "playing"]])
    expect(await text(page, "#left")).toBe("250 nuggets unclaimed")
    expect(await text(page, "#watchers")).toBe("1 watching")
    expect(await page.evaluate(() => document.body.dataset.mode)).toBe("watching")
    // The spectator's place was not taken.
    expect(host.state().spectator).toBeUndefined()
    // A laptop's window shows the example map whole, at a readable size.
    const board = await boardSize(page)
    expect(board.fontPx).toBeGreaterThanOrEqual(14)
    expect(board.scrollWidth).toBeLessThanOrEqual(board.clientWidth)
    expect(board.scrollHeight).toBeLessThanOrEqual(board.clientHeight)
  })

  it("a map larger than the window scrolls, its font kept readable", async () => {
    const { host, url } = await game({ map: loadMap("large.txt") })
    const page = await open(url)
    await waitForGrid(page, framedView(renderView(host.state(), "spectator")))
    const board = await boardSize(page)
    expect(board.fontPx).toBeGreaterThanOrEqual(9)
    expect(board.scrollWidth).toBeGreaterThan(board.clientWidth)
  })

  it("a visitor joins by name, moves with the keys, reads the status line; a UDP spectator sees the moves", async () => {
    const { host, port, url } = await game()
    const spectator = await udpClient(port)
    spectator.send("SPECTATE")
    await spectator.nextStarting("DISPLAY")
    const page = await open(url)
    await page.fill("#name", "Pat")
    await page.press("#name", "Enter")
    await page.waitForFunction(() => document.body.dataset.mode === "playing")
    await page.waitForFunction(() => document.getElementById("status")!.textContent!.includes("unclaimed"))
    expect(await text(page, "#status")).toBe("Player A has 0 nuggets (250 nuggets unclaimed).")
    expect(host.state().players[0]).toMatchObject({ name: "Pat", active: true })
    const joined = gridOf(await nextWhere(spectator, (m) => m.startsWith("DISPLAY") && m.includes("A")))
    // The player's own view, limited by its sight: not the spectator's.
    await waitForGrid(page, framedView(renderView(host.state(), 0)))

    const key = openMove(host.state(), 0)
    const from = host.state().players[0]!.position
    await page.keyboard.press(key)
    const moved = gridOf(await spectator.nextStarting("DISPLAY"))
    expect(moved.indexOf("A")).not.toBe(joined.indexOf("A"))
    expect(host.state().players[0]!.position).not.toBe(from)
    await waitForGrid(page, framedView(renderView(host.state(), 0)))

    // An arrow is a move key too.
    const arrow = { h: "ArrowLeft", l: "ArrowRight", k: "ArrowUp", j: "ArrowDown" }[openMove(host.state(), 0)]
    expect(arrow).toBeDefined()
    const before = host.state().players[0]!.position
    await page.keyboard.press(arrow!)
    await spectator.nextStarting("DISPLAY")
    expect(host.state().players[0]!.position).not.toBe(before)

    // The server's refusal shows as the terminal's note.
    await page.keyboard.press("z")
    await page.waitForFunction(() => document.getElementById("note")!.textContent === "unknown keystroke")

    await page.keyboard.press("Q")
    await page.waitForFunction(() => document.body.dataset.mode === "watching")
    expect(await text(page, "#join-note")).toBe("Thanks for playing!")
    expect(host.state().players[0]!.active).toBe(false)
  })

  it("two pages watch while bots play to the end; both rank the players, name the winner, and the roster says so", async () => {
    const { host, port, result, url } = await game({ map: loadMap("small.txt") })
    const pages = [await open(url), await open(url)]
    await Promise.all(pages.map((page) => page.waitForFunction(() => document.getElementById("watchers")!.textContent === "2 watching")))
    await Effect.runPromise(runBots({ host: "127.0.0.1", port, count: 3, strategy: "greedy", seed: 5, rate: 400 }).pipe(quiet, Effect.provide(nodeUdpLayer)))
    await result
    const ranked = rankedOf(host.state().players)
    for (const page of pages) {
      await page.waitForSelector("#summary:not([hidden])", { timeout: 3000 })
      expect(await tableText(page, "#standings")).toEqual(ranked.map((each) => [String(each.place), each.letter, each.name, String(each.purse)]))
      expect(await text(page, "#winner")).toBe(`${ranked[0]!.letter} ${ranked[0]!.name} wins with ${ranked[0]!.purse} nuggets.`)
      // The roster, in letter order, says who won and the others' places, not "playing".
      const states = (await tableText(page, "#roster")).map((cells) => cells[3])
      expect(states).toEqual(host.state().players.map(({ letter }) => {
        const place = ranked.find((each) => each.letter === letter)!.place
        return place === 1 ? "winner" : `#${place}`
      }))
      expect(await text(page, "#left")).toBe("0 nuggets unclaimed")
      expect(await text(page, "#status")).toBe("Game over.")
    }
  })

  it("closing a player's tab quits that player", async () => {
    const { host, port, url } = await game()
    const spectator = await udpClient(port)
    spectator.send("SPECTATE")
    await spectator.nextStarting("DISPLAY")
    const page = await open(url)
    await page.fill("#name", "Closer")
    await page.press("#name", "Enter")
    await page.waitForFunction(() => document.body.dataset.mode === "playing")
    await nextWhere(spectator, (m) => m.startsWith("DISPLAY") && m.includes("A"))
    await page.close()
    await nextWhere(spectator, (m) => m.startsWith("DISPLAY") && !gridOf(m).includes("A"))
    expect(host.state().players[0]!.active).toBe(false)
  })
})

/** A short game played by bots and recorded, then served as a replay: its page's address and the game's summary. */
const recordedReplay = async () => {
  const dir = owned(mkdtempSync(join(tmpdir(), "nuggets-web-replay-")), (dir) => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, "game.ndjson")
  const server = await startServer({ map: loadMap("small.txt"), seed: 4, record: file })
  await Effect.runPromise(runBots({ host: "127.0.0.1", port: server.port, count: 2, strategy: "greedy", seed: 2, rate: 300 }).pipe(quiet, Effect.provide(nodeUdpLayer)))
  const { summary } = await server.result
  await server.stop()
  const recording = Either.getOrThrow(parseRecording(readFileSync(file, "utf8")))
  const scope = Effect.runSync(Scope.make())
  owned(scope, (scope) => Effect.runPromise(Scope.close(scope, Exit.void)))
  const { url } = await Effect.runPromise(startReplayWeb(recording, { host: "127.0.0.1", port: 0 }).pipe(Scope.extend(scope)))
  return { summary, url }
}

describe("the page's rough edges", () => {
  it("a 50-character name stays in its column: the roster's state shows whole, and nothing scrolls sideways, at 800, 1200 and 1600 px", async () => {
    const { port, url } = await game()
    const long = await udpClient(port)
    long.send(`PLAY ${"W".repeat(50)}`)
    await long.nextStarting("DISPLAY")
    const page = await open(url)
    await page.waitForSelector("#roster tbody tr")
    for (const width of [800, 1200, 1600]) {
      await page.setViewportSize({ width, height: 800 })
      const layout = await page.evaluate(() => {
        const root = document.documentElement
        const aside = document.querySelector("aside")
        const state = document.querySelector("#roster tbody td.state")
        return {
          pageScrolls: root.scrollWidth > root.clientWidth,
          panelScrolls: aside.scrollWidth > aside.clientWidth,
          stateInside: state.getBoundingClientRect().right <= aside.getBoundingClientRect().right + 0.5,
          stateWhole: state.scrollWidth <= state.clientWidth,
          state: state.textContent
        }
      })
      expect({ width, ...layout }).toEqual({ width, pageScrolls: false, panelScrolls: false, stateInside: true, stateWhole: true, state: "playing" })
    }
  })

  it("the game-over box ranks the players, most nuggets first, and names the winner; the roster no longer says playing", async () => {
    const { port, result, url } = await game({ map: loadMap("small.txt") })
    const idle = await udpClient(port)
    idle.send("PLAY Idle")
    await idle.nextStarting("DISPLAY")
    const runner = await udpClient(port)
    runner.send("PLAY Runner")
    await runner.nextStarting("DISPLAY")
    const page = await open(url)
    await page.waitForFunction(() => document.querySelectorAll("#roster tbody tr").length === 2)
    const spectator = await udpClient(port)
    spectator.send("SPECTATE")
    await collectAllGold(runner, spectator, gridOf(await spectator.nextStarting("DISPLAY")), "B")
    await result
    await page.waitForSelector("#summary:not([hidden])", { timeout: 3000 })
    expect(await tableText(page, "#standings")).toEqual([["1", "B", "Runner", "250"], ["2", "A", "Idle", "0"]])
    expect(await text(page, "#winner")).toBe("B Runner wins with 250 nuggets.")
    expect(await tableText(page, "#roster")).toEqual([["A", "Idle", "0", "#2"], ["B", "Runner", "250", "winner"]])
  })

  it("? in a game lists the keys, as in the terminal: it is not sent to the server, and the next key only closes the list", async () => {
    const { url } = await game()
    const page = await open(url)
    const sent: Array<string> = []
    page.on("websocket", (socket) => socket.on("framesent", ({ payload }) => sent.push(String(payload))))
    await page.fill("#name", "Pat")
    await page.press("#name", "Enter")
    await page.waitForFunction(() => document.body.dataset.mode === "playing")
    expect(await page.isVisible("#help")).toBe(false)
    await page.keyboard.press("?")
    await page.waitForSelector("#help:not([hidden])")
    expect(await text(page, "#help-keys")).toContain("this help")
    await page.keyboard.press("x")
    await page.waitForSelector("#help", { state: "hidden" })
    // The next key goes to the server, which refuses it; the two before never went.
    await page.keyboard.press("z")
    await page.waitForFunction(() => document.getElementById("note")!.textContent === "unknown keystroke")
    expect(sent).toEqual(["PLAY Pat", "KEY z"])
  })

  it("a live game's page gives the game's keys; a replay's gives the replay's, not the game's", async () => {
    const { url } = await game()
    const live = await open(url)
    await live.waitForFunction(() => document.body.dataset.mode === "watching")
    expect(await text(live, "#keys")).toContain("Q quits")
    const replay = await open((await recordedReplay()).url)
    await replay.waitForFunction(() => document.body.dataset.mode === "replay")
    const keys = await text(replay, "#keys")
    expect(keys).toContain("space pauses")
    expect(keys).not.toMatch(/quits|Q\b|\?/)
  })
})

describe("a recording in the page", () => {
  it("plays with pause, step and seek controls, and shows the summary at the end", async () => {
    const { summary, url } = await recordedReplay()
    const page = await open(url)
    await page.waitForFunction(() => document.body.dataset.mode === "replay")
    expect(await page.isVisible("#join")).toBe(false)
    await page.click("#pause")
    await page.waitForFunction(() => document.getElementById("where")!.textContent!.endsWith(" paused]"))
    // Back to the start, then one move on.
    await page.$eval("#seek", (seek: any) => {
      seek.value = "0"
      seek.dispatchEvent(new Event("input"))
    })
    await page.keyboard.press("ArrowRight")
    await page.waitForFunction(() => /^\[move 2\/\d+ \d+:\d\d paused\]$/.test(document.getElementById("where")!.textContent!))
    expect(await page.isVisible("#summary")).toBe(false)
    await page.selectOption("#speed", "4")
    await page.waitForFunction(() => document.getElementById("where")!.textContent!.includes(" x4 paused]"))
    // To the end: the last move's summary.
    await page.$eval("#seek", (seek: any) => {
      seek.value = seek.max
      seek.dispatchEvent(new Event("input"))
    })
    await page.waitForSelector("#summary:not([hidden])")
    const final = summary.trimEnd().split("\n").map((line) => {
      const [, letter, purse, name] = /^([A-Z]) +(\d+) (.*)$/.exec(line)!
      return { letter: letter!, name: name!, purse: Number(purse) }
    })
    expect(await tableText(page, "#standings")).toEqual(rankedOf(final).map((each) => [String(each.place), each.letter, each.name, String(each.purse)]))
    expect(await gridText(page)).toContain("|")
  })
})

/** `SCREENSHOTS=DIR` keeps a picture of each screen there. */
const screenshot = async (page: Page, name: string) => {
  const dir = process.env.SCREENSHOTS
  if (dir === undefined) return
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })
}

/** A page on a screen of this size, a touch screen's (a phone's) when `touch`. */
const openOn = async (url: string, screen: { readonly width: number; readonly height: number; readonly touch: boolean }): Promise<Page> => {
  const context = owned(
    await browser.newContext({ viewport: { width: screen.width, height: screen.height }, hasTouch: screen.touch, isMobile: screen.touch }),
    (context) => context.close()
  )
  // When each message went out to the game, as the page's clock says.
  await context.addInitScript(() => {
    const sent: Array<number> = ((window as any).keysSent = [])
    const send = WebSocket.prototype.send
    WebSocket.prototype.send = function(this: WebSocket, data: any) {
      if (String(data).startsWith("KEY ")) sent.push(performance.now())
      return send.call(this, data)
    }
  })
  const page = await context.newPage()
  const problems: Array<string> = []
  page.on("pageerror", (error) => problems.push(String(error)))
  owned(problems, (seen) => expect(seen).toEqual([]))
  await page.goto(url)
  return page
}

/** How the page lies on the screen: what scrolls sideways, what is cut with an ellipsis, where the map and the player are. */
const layoutOf = (page: Page) =>
  page.evaluate(() => {
    const root = document.documentElement
    const rect = (element: any) => {
      const box = element.getBoundingClientRect()
      return { left: box.left, top: box.top, right: box.right, bottom: box.bottom, width: box.width, height: box.height }
    }
    const grid = document.getElementById("grid")
    const firstRow = grid.querySelector("div")
    const me = grid.querySelector(".me")
    return {
      sideways: root.scrollWidth > root.clientWidth,
      ellipsis: Array.from(document.querySelectorAll("*"))
        .filter((element: any) => getComputedStyle(element).textOverflow === "ellipsis" && element.scrollWidth > element.clientWidth)
        .map((element: any) => element.id || element.tagName),
      statusCut: document.getElementById("statusbar").scrollWidth > document.getElementById("statusbar").clientWidth,
      screen: { width: root.clientWidth, height: window.innerHeight },
      board: rect(document.getElementById("board")),
      grid: rect(grid),
      charWidth: rect(firstRow).width === 0 ? 0 : grid.scrollWidth / Array.from(firstRow.textContent).length,
      me: me === null ? undefined : rect(me)
    }
  })

describe("the page on every screen", () => {
  const screens = [
    { name: "phone", width: 390, height: 844, touch: true },
    { name: "laptop", width: 800, height: 900, touch: false },
    { name: "desktop", width: 1600, height: 1000, touch: false }
  ] as const

  for (const screen of screens) {
    it(`${screen.width}x${screen.height}${screen.touch ? " (touch)" : ""}: nothing scrolls sideways or is cut short; the map in sight, then a new player's own view filling the board${screen.touch ? "; a tap on the pad moves it" : ""}`, async () => {
      const { host, port, url } = await game({ seed: 3 })
      const bob = await udpClient(port)
      bob.send("PLAY Bob")
      await bob.nextStarting("DISPLAY")
      const page = await openOn(url, screen)
      await waitForGrid(page, framedView(renderView(host.state(), "spectator")))
      const watching = await layoutOf(page)
      await screenshot(page, `${screen.name}-watching`)
      expect(watching).toMatchObject({ sideways: false, ellipsis: [], statusCut: false })
      // The whole map inside the screen, framed around its rooms (the blank columns about them left out).
      expect(watching.grid.left).toBeGreaterThanOrEqual(0)
      expect(watching.grid.right).toBeLessThanOrEqual(watching.screen.width)
      expect(watching.grid.bottom).toBeLessThanOrEqual(watching.screen.height)
      if (screen.width === 800) expect(watching.charWidth).toBeGreaterThanOrEqual(10)

      await page.fill("#name", "Pat")
      await page.press("#name", "Enter")
      await page.waitForFunction(() => document.body.dataset.mode === "playing")
      await waitForGrid(page, framedView(renderView(host.state(), 1)))
      const playing = await layoutOf(page)
      await screenshot(page, `${screen.name}-playing`)
      expect(playing).toMatchObject({ sideways: false, ellipsis: [], statusCut: false })
      // The player in sight, on the board and on the screen.
      expect(playing.me).toBeDefined()
      for (const [inner, outer] of [[playing.me!, playing.board], [playing.me!, { left: 0, top: 0, right: playing.screen.width, bottom: playing.screen.height }]] as const) {
        expect(inner.left).toBeGreaterThanOrEqual(outer.left)
        expect(inner.right).toBeLessThanOrEqual(outer.right)
        expect(inner.top).toBeGreaterThanOrEqual(outer.top)
        expect(inner.bottom).toBeLessThanOrEqual(outer.bottom)
      }
      // What it knows (one room) fills a fair part of the board, not a corner of the whole map's blank one.
      expect(Math.max(playing.grid.width / playing.board.width, playing.grid.height / playing.board.height)).toBeGreaterThanOrEqual(0.5)

      expect(await page.isVisible("#pad")).toBe(screen.touch)
      if (!screen.touch) {
        // The keys' box has room for its words: a description is a line, not a word or two a line.
        await page.keyboard.press("?")
        await page.waitForSelector("#help:not([hidden])")
        await screenshot(page, `${screen.name}-help`)
        const help = await page.$eval("#help", (box: any) => ({
          overflows: box.scrollWidth > box.clientWidth,
          lines: Array.from(box.querySelectorAll("dd"), (dd: any) => Math.round(dd.getBoundingClientRect().height / parseFloat(getComputedStyle(dd).lineHeight)))
        }))
        expect(help.overflows).toBe(false)
        expect(Math.max(...help.lines)).toBeLessThanOrEqual(2)
        await page.keyboard.press("x")
        await page.waitForSelector("#help", { state: "hidden" })
      }
      if (screen.touch) {
        // No `?` to type on a phone: the pad opens the list of keys, and a tap closes it.
        await page.getByRole("button", { name: "keys", exact: true }).tap()
        await page.waitForSelector("#help:not([hidden])")
        await screenshot(page, `${screen.name}-help`)
        expect(await text(page, "#help-close")).toBe("A tap closes this.")
        expect(await page.$eval("#help", (box: any) => box.scrollWidth <= box.clientWidth)).toBe(true)
        await page.tap("#help")
        await page.waitForSelector("#help", { state: "hidden" })
        const from = host.state().players[1]!.position
        expect(host.state().map.cells[from - 1], "the player can step left").toBe(0x2e)
        const before = playing.me!.left
        await page.getByRole("button", { name: "left", exact: true }).tap()
        await page.waitForFunction((before) => document.querySelector("#grid .me").getBoundingClientRect().left < before, before, { timeout: 3000 })
        expect(host.state().players[1]!.position).toBe(from - 1)
        await screenshot(page, `${screen.name}-moved`)
        // A button held repeats its key, never faster than the server takes keys.
        const sentBefore = await page.evaluate(() => (window as any).keysSent.length)
        const right = page.getByRole("button", { name: "right", exact: true })
        await right.dispatchEvent("pointerdown")
        await page.waitForFunction((before) => (window as any).keysSent.length >= before + 3, sentBefore, { timeout: 5000 })
        await right.dispatchEvent("pointerup")
        const held: Array<number> = await page.evaluate((before) => (window as any).keysSent.slice(before), sentBefore)
        const gaps = held.slice(1).map((at, i) => at - held[i]!)
        expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000 / keysPerSecond)
      }

      // Ended with its nuggets on the map (as nuggets play ends it): stopped, with no winner.
      await Effect.runPromise(host.endGame)
      await page.waitForSelector("#summary:not([hidden])", { timeout: 3000 })
      await screenshot(page, `${screen.name}-stopped`)
      expect(await text(page, "#end-title")).toBe("Game stopped")
      expect(await text(page, "#winner")).toBe(`No winner: ${host.state().goldRemaining} nuggets left on the map.`)
      expect(await text(page, "#status")).toBe(`Game stopped. No winner: ${host.state().goldRemaining} nuggets left on the map.`)
      expect((await tableText(page, "#roster")).map((cells) => cells[3])).toEqual(["#1", "#1"])
      expect(await page.$$eval("#standings tr.won", (rows) => rows.length)).toBe(0)
      expect(await layoutOf(page)).toMatchObject({ sideways: false, ellipsis: [] })
      // The box has room for its words: nothing in it overflows.
      expect(await page.$eval("#summary", (box: any) => box.scrollWidth <= box.clientWidth)).toBe(true)
    })
  }
})
