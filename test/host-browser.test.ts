/**
 * The lobby of `nuggets host` in a real browser (Debian's chromium, headless, driven by
 * playwright-core), against a host in this process: the live games, the new-game form,
 * watching and playing from the lobby, the archive's filters and replays, the leaderboard,
 * and the layout at 800 and 1,600 px. `SCREENSHOTS=DIR` keeps a picture of each page there.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { postGame, startHost, type TestHost } from "./host/harness.js"
import { collectAllGold, gridOf, TestClient } from "./server/harness.js"
import { systemProgram } from "../scripts/programs.js"

/** What the tests touch in the page, inside functions that run there: the project's types have no DOM. */
declare const document: any

let browser: Browser
let host: TestHost
const clients: Array<TestClient> = []
const pages: Array<Page> = []

beforeAll(async () => {
  ;[browser, host] = await Promise.all([
    chromium.launch({
      executablePath: systemProgram("chromium"),
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]
    }),
    startHost({ open: 1 })
  ])
})
afterAll(async () => {
  await Promise.all(clients.map((each) => each.close()))
  await browser?.close()
  await host?.stop()
})

const udpClient = async (port: number) => {
  const client = await TestClient.open(port)
  clients.push(client)
  return client
}

const open = async (path: string, width = 1366): Promise<Page> => {
  const page = await browser.newPage({ viewport: { width, height: 800 } })
  pages.push(page)
  const problems: Array<string> = []
  page.on("pageerror", (error) => problems.push(String(error)))
  page.on("console", (message) => message.type() === "error" && problems.push(message.text()))
  // Checked after the test: the page's own errors fail it.
  afterChecks.push(() => expect(problems).toEqual([]))
  await page.goto(new URL(path, host.url).href)
  return page
}
const afterChecks: Array<() => void> = []
const checkPages = async () => {
  for (const check of afterChecks.splice(0)) check()
  await Promise.all(pages.splice(0).map((page) => page.close()))
}

const shot = async (page: Page, name: string) => {
  const dir = process.env.SCREENSHOTS
  if (dir === undefined) return
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })
}

/** Nothing on the page is wider than the window: no sideways scrolling. */
const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth) as Promise<boolean>

/** A small game played to its end by `name` (over UDP, as fast as it goes): its id. */
const playToTheEnd = async (name: string, map = "small") => {
  const started = await postGame(host.url, { map })
  const player = await udpClient(started.body.port)
  player.send(`PLAY ${name}`)
  await player.nextStarting("DISPLAY")
  const spectator = await udpClient(started.body.port)
  spectator.send("SPECTATE")
  await collectAllGold(player, spectator, gridOf(await spectator.nextStarting("DISPLAY")))
  return started.body.id as string
}

describe("the lobby in a browser", () => {
  it("lists the live games, and shows a player joining without a reload; tidy at 800 and 1,600 px", async () => {
    const [open1] = host.games.running()
    const page = await open("/")
    await page.waitForSelector(`article[data-id="${open1!.id}"]`)
    const card = () => page.$eval(`article[data-id="${open1!.id}"]`, (card: any) => ({
      map: card.querySelector(".map").textContent,
      players: Array.from(card.querySelectorAll(".players tr"), (row: any) => Array.from(row.cells, (cell: any) => cell.textContent)),
      join: card.querySelector(".join code").textContent,
      link: card.querySelector("a.open").getAttribute("href")
    }))
    expect(await card()).toEqual({ map: open1!.choice.map.name, players: [], join: `nuggets join 127.0.0.1 ${open1!.port} NAME`, link: `/games/${open1!.id}/` })
    const alice = await udpClient(open1!.port)
    alice.send("PLAY Alice")
    await alice.nextStarting("DISPLAY")
    await page.waitForFunction((id) => document.querySelector(`article[data-id="${id}"] .players td.name`)?.textContent === "Alice", open1!.id)
    expect((await card()).players).toEqual([["A", "Alice", "0"]])
    expect(await page.textContent("#counts")).toMatch(/ · 1 player playing$/)
    for (const width of [800, 1600]) {
      await page.setViewportSize({ width, height: 800 })
      expect(await scrollsSideways(page), `${width} px`).toBe(false)
      await shot(page, `lobby-${width}`)
    }
    await checkPages()
  })

  it("the new-game form starts a game on the map chosen, and leads to its page, where a visitor watches and plays", async () => {
    const page = await open("/")
    await page.waitForSelector("#new-map option", { state: "attached" })
    expect(await page.$$eval("#new-map option", (options: Array<any>) => options.map((option) => option.value))).toEqual(["main", "small", "hole"])
    await page.selectOption("#new-map", "hole")
    await page.fill("#new-seed", "42")
    await page.selectOption("#new-dialect", "2021")
    await page.click("#new-start")
    await page.waitForURL(/\/games\/\d{8}-\d{6}-[a-z0-9]{4}\/$/)
    const id = new URL(page.url()).pathname.split("/")[2]!
    const game = host.games.find(id)!
    expect(game.choice).toMatchObject({ seed: 42, dialect: "2021", variant: "classic" })
    expect(game.choice.map.name).toBe("hole")
    // Today's page, under the game's path: it watches, and plays.
    await page.waitForFunction(() => document.body.dataset.mode === "watching")
    expect(await page.isVisible("#lobby")).toBe(true)
    await page.fill("#name", "Visitor")
    await page.press("#name", "Enter")
    await page.waitForFunction(() => document.body.dataset.mode === "playing")
    expect(game.live.state().players.map((each) => each.name)).toEqual(["Visitor"])
    const spectator = await udpClient(game.port)
    spectator.send("SPECTATE")
    await spectator.nextStarting("DISPLAY")
    const before = game.live.state().players[0]!.position
    for (const key of ["h", "l", "j", "k"]) {
      await page.keyboard.press(key)
      if (game.live.state().players[0]!.position !== before) break
    }
    expect(game.live.state().players[0]!.position).not.toBe(before)
    await shot(page, "game-under-lobby")
    await checkPages()
  })

  it("from a card, Watch and play opens the game's page", async () => {
    const page = await open("/")
    const [first] = host.games.running()
    await page.click(`article[data-id="${first!.id}"] a.open`)
    await page.waitForURL(new URL(`/games/${first!.id}/`, host.url).href)
    await page.waitForFunction(() => document.body.dataset.mode === "watching")
    expect(await page.textContent("#watchers")).toBe("1 watching")
    await checkPages()
  })

  it("past games: filtered by player and by map, a page at a time, each replayed in the game's page; the leaderboard", async () => {
    const games = [await playToTheEnd("Zed"), await playToTheEnd("Yara"), await playToTheEnd("Zed", "hole")]
    const page = await open("/archive")
    await page.waitForSelector(`#past tr[data-id="${games[2]}"]`)
    const shown = () => page.$$eval("#past tbody tr", (rows: Array<any>) => rows.map((row) => row.dataset.id))
    expect((await shown()).slice(0, 3)).toEqual([games[2], games[1], games[0]])
    const zed = await page.$$eval(`#past tr[data-id="${games[2]}"] td`, (cells: Array<any>) => cells.map((cell) => cell.textContent))
    expect(zed.slice(1)).toEqual(["hole", expect.stringMatching(/^\d+:\d\d$/), "over", "Zed", "1. Zed 250"])
    await page.fill("#filter-player", "zed")
    await page.click("#filter button")
    await page.waitForFunction(() => document.querySelectorAll("#past tbody tr").length === 2)
    expect(await shown()).toEqual([games[2], games[0]])
    expect(new URL(page.url()).search).toBe("?player=zed")
    await page.selectOption("#filter-map", "small")
    await page.click("#filter button")
    await page.waitForFunction(() => document.querySelectorAll("#past tbody tr").length === 1)
    expect(await shown()).toEqual([games[0]])
    for (const width of [800, 1600]) {
      await page.setViewportSize({ width, height: 800 })
      expect(await scrollsSideways(page), `${width} px`).toBe(false)
      await shot(page, `archive-${width}`)
    }
    // A game played meanwhile shows on the first page without a reload.
    await page.click("#filter-clear")
    await page.waitForSelector(`#past tr[data-id="${games[2]}"]`)
    const later = await playToTheEnd("Xavi")
    await page.waitForSelector(`#past tr[data-id="${later}"]`)

    // Its replay, in today's playback page.
    await page.click(`#past tr[data-id="${games[0]}"] td.when a`)
    await page.waitForURL(new URL(`/archive/${games[0]}/`, host.url).href)
    await page.waitForFunction(() => document.body.dataset.mode === "replay")
    await page.waitForFunction(() => document.getElementById("where").textContent.startsWith("[move "))
    await shot(page, "replay")

    const board = await open("/leaderboard")
    await board.waitForFunction(() => document.querySelectorAll("#leaders tbody tr").length >= 3)
    const leaders = await board.$$eval("#leaders tbody tr", (rows: Array<any>) => rows.map((row) => Array.from(row.cells, (cell: any) => cell.textContent)))
    expect(leaders[0]).toEqual(["1", "Zed", "2", "2", "500", "250 nuggets"])
    expect(leaders.map((row) => row[1])).toEqual(expect.arrayContaining(["Yara", "Xavi"]))
    for (const width of [800, 1600]) {
      await board.setViewportSize({ width, height: 800 })
      expect(await scrollsSideways(board), `${width} px`).toBe(false)
      await shot(board, `leaderboard-${width}`)
    }
    await checkPages()
  })
})
