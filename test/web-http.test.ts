// The web side over real HTTP (about 400 lines): one file, as every case shares the served game and the raw-request helpers.
import { describe, expect, it } from "@effect/vitest"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Deferred, Effect, Either, Exit, Scope } from "effect"
import { connect, createServer, type Socket } from "node:net"
import { mapText } from "../src/core/map.js"
import { pageUrl, parseWebAddress } from "../src/web/address.js"
import { startWeb } from "../src/web/live.js"
import { listen } from "../src/web/listen.js"
import { Outbox } from "../src/web/outbox.js"
import { collectAllGold, gridOf, TestClient } from "./server/harness.js"
import { owned } from "./owned.js"
import { loadMap } from "./support.js"
import { PageSocket, startWebGame, Watcher } from "./web/harness.js"
import { maskedTextFrame, rawWebSocket, readUntil } from "./web/hostile.js"

const main = loadMap("main.txt")

/** `effect`, awaited for at most 3 s; a failure names what never happened. */
const within = (effect: Effect.Effect<void>, what: string) =>
  Effect.runPromise(effect.pipe(Effect.timeoutFail({ duration: "3 seconds", onTimeout: () => new Error(`no ${what} within 3 s`) })))

const game = async (options: Partial<Parameters<typeof startWebGame>[0]> = {}) =>
  owned(await startWebGame({ map: main, seed: 7, ...options }), (game) => game.stop())
const watcher = async (url: string) => owned(await Watcher.open(url), (watcher) => watcher.close())
const page = async (url: string) => owned(await PageSocket.open(url), (page) => page.close())
const udpClient = async (port: number) => owned(await TestClient.open(port), (client) => client.close())

/** A raw HTTP request, with headers fetch would not send (Host, Upgrade, Origin): its status. */
const rawGet = (url: string, path: string, headers: Record<string, string>) =>
  new Promise<{ status: number }>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const lines = [`GET ${path} HTTP/1.1`, ...Object.entries({ host: `${hostname}:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}`)]
    const socket = connect(Number(port), hostname, () => socket.write(`${lines.join("\r\n")}\r\n\r\n`))
    let text = ""
    socket.on("data", (chunk) => {
      text += chunk
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)
      if (status) {
        socket.destroy()
        resolve({ status: Number(status[1]) })
      }
    })
    socket.on("error", reject)
    socket.on("close", () => reject(new Error(`closed without a status: ${JSON.stringify(text)}`)))
  })

const upgradeHeaders = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-version": "13",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ=="
}

describe("web: --web [HOST:]PORT", () => {
  it("reads a port alone (on loopback), an IPv4 address or localhost with a port, a bracketed IPv6 one", () => {
    expect(Either.getOrThrow(parseWebAddress("8080"))).toEqual({ host: "127.0.0.1", port: 8080 })
    expect(Either.getOrThrow(parseWebAddress("0"))).toEqual({ host: "127.0.0.1", port: 0 })
    expect(Either.getOrThrow(parseWebAddress("0.0.0.0:8080"))).toEqual({ host: "0.0.0.0", port: 8080 })
    expect(Either.getOrThrow(parseWebAddress("localhost:80"))).toEqual({ host: "localhost", port: 80 })
    expect(Either.getOrThrow(parseWebAddress("[::1]:8080"))).toEqual({ host: "::1", port: 8080 })
    expect(Either.getOrThrow(parseWebAddress("[::]:65535"))).toEqual({ host: "::", port: 65535 })
  })

  it("refuses anything else with a one-line reason", () => {
    const reasons = Object.fromEntries(
      ["", " 8080", "80a", "+80", "65536", "-1", "::1:8080", "example.com:80", "[::1]", "1.2.3:80", "[127.0.0.1]:80", "8080:"].map(
        (text) => [text, Either.match(parseWebAddress(text), { onLeft: (error) => error.message, onRight: () => "accepted" })]
      )
    )
    for (const [text, reason] of Object.entries(reasons)) {
      expect(reason, text).toMatch(/^".*"( in ".*")? [^:]+; write \[HOST:\]PORT, e\.g\. 8080, 0\.0\.0\.0:8080 or \[::1\]:8080$/)
    }
    expect(reasons["::1:8080"]).toContain("an IPv6 address, which goes in brackets")
    // What was typed is quoted once.
    expect(reasons["65536"]).toMatch(/^"65536" is not a port \(0 to 65535\); write/)
    expect(reasons["example.com:80"]).toContain('"example.com" in "example.com:80" is not an IP address')
  })

  it("gives the page's address as a browser here reaches it", () => {
    expect(pageUrl("127.0.0.1", 8080)).toBe("http://127.0.0.1:8080/")
    expect(pageUrl("0.0.0.0", 8080)).toBe("http://127.0.0.1:8080/")
    expect(pageUrl("::", 80)).toBe("http://[::1]:80/")
    expect(pageUrl("::1", 80)).toBe("http://[::1]:80/")
  })
})

describe("web: routes", () => {
  it("/ is the whole page, inline, with a policy that lets nothing else in", async () => {
    const { url } = await game()
    const response = await fetch(url)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
    const policy = response.headers.get("content-security-policy")!
    expect(policy).toContain("default-src 'none'")
    expect(policy).toMatch(/script-src 'sha256-[^']+'/)
    const html = await response.text()
    expect(html).toContain('<div id="grid"')
    // Nothing is fetched from elsewhere: the page works offline.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
    expect(html).not.toMatch(/<script src|<link rel="stylesheet"/)
  })

  it("anything but the fixed routes is 404, and no path reaches a file", async () => {
    const { url } = await game()
    for (const path of ["nope", "index.html", "watch/x", "..%2f..%2fetc%2fpasswd", "%2e%2e/%2e%2e/etc/passwd", "play/../../etc/passwd"]) {
      const response = await fetch(new URL(path, url))
      expect({ path, status: response.status }).toEqual({ path, status: 404 })
    }
    expect((await fetch(url, { method: "POST", body: "x" })).status).toBe(404)
    expect((await rawGet(url, "/../../etc/passwd", {})).status).toBe(404)
  })

  it("bound to loopback, it answers only to loopback names: a rebound DNS name gets 421", async () => {
    const { url } = await game()
    const { port } = new URL(url)
    expect((await rawGet(url, "/", { host: `evil.example:${port}` })).status).toBe(421)
    expect((await rawGet(url, "/", { host: `localhost:${port}` })).status).toBe(200)
  })

  it("a request the server cannot read gets its 4xx with a line of text, and the game goes on", async () => {
    const { port: udpPort, url } = await game()
    const { hostname, port } = new URL(url)
    const answer = (text: string) =>
      new Promise<string>((resolve) => {
        let got = ""
        const socket = connect(Number(port), hostname, () => socket.write(text))
        socket.on("data", (chunk) => (got += chunk))
        socket.on("error", () => undefined)
        socket.on("close", () => resolve(got))
      })
    const garbage = await answer("HELLO THERE\r\n\r\n")
    expect(garbage).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    expect(garbage).toMatch(/\r\n\r\nThis is not an HTTP request this server can read\.\n$/)
    const huge = await answer(`GET / HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-Big: ${"x".repeat(10_000)}\r\n\r\n`)
    expect(huge).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n[^]*\r\n\r\nThe request's headers are too large\.\n$/)
    const player = await udpClient(udpPort)
    player.send("PLAY Unbothered")
    expect(await player.next()).toBe("OK A")
  })

  it("a request's scope ends with its connection, even while its handling waits where it cannot be interrupted", async () => {
    const held = Effect.runSync(Deferred.make<void>())
    const released = Effect.runSync(Deferred.make<void>())
    // Like the platform's wait for a WebSocket handshake the library refused: nothing can interrupt it.
    const stuck = Effect.acquireRelease(Deferred.succeed(held, undefined), () => Deferred.succeed(released, undefined)).pipe(
      Effect.zipRight(Effect.uninterruptible(Effect.never)),
      Effect.as(HttpServerResponse.empty())
    )
    const scope = Effect.runSync(Scope.make())
    owned(scope, (scope) => Effect.runPromise(Scope.close(scope, Exit.void)))
    const { url } = await Effect.runPromise(listen(HttpRouter.empty.pipe(HttpRouter.get("/stuck", stuck)), { host: "127.0.0.1", port: 0 }).pipe(Scope.extend(scope)))
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname, () => socket.write(`GET /stuck HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`))
    await within(Deferred.await(held), "the request to be handled")
    expect(Effect.runSync(Deferred.isDone(released))).toBe(false)
    socket.destroy()
    await within(Deferred.await(released), "the request's scope to close with its connection")
  })

  it("a port in use is a WebError, PortInUse", async () => {
    const taken = owned(createServer(), (server) => new Promise((resolve) => server.close(resolve)))
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as { port: number }).port
    const { host } = await game()
    const error = await Effect.runPromise(Effect.scoped(Effect.flip(startWeb(host, { host: "127.0.0.1", port }))))
    expect(error).toMatchObject({ _tag: "WebError", reason: "PortInUse" })
    expect(error.message).toBe(`127.0.0.1:${port} — cannot serve the web page: the port is in use`)
  })
})

describe("web: watching", () => {
  it("a late watcher gets the map and the current frame at once, without taking the SPECTATE place", async () => {
    const { host, port, url } = await game()
    const alice = await udpClient(port)
    alice.send("PLAY Alice")
    await alice.nextStarting("DISPLAY")
    const seen = await watcher(url)
    const hello = await seen.events.next()
    expect(hello.event).toBe("hello")
    expect(hello.data).toEqual({ mode: "live", rows: 21, cols: 79, map: mapText(main).replace(/\n$/, "") })
    // At once: the first event after the map, though nothing has happened in the game since.
    const snapshot = (await seen.events.next()).data
    const state = host.state()
    expect(snapshot).toEqual({
      players: [{ letter: "A", name: "Alice", purse: 0, cell: state.players[0]!.position }],
      gold: [...state.gold.keys()],
      remaining: 250,
      watchers: 1
    })
    // The protocol's one spectator place is still free.
    const spectator = await udpClient(port)
    spectator.send("SPECTATE")
    expect(await spectator.next()).toMatch(/^GRID /)
    expect(host.state().spectator).toBeDefined()
  })

  it("follows moves, counts watchers as they come and go, and marks the end with the final purses", async () => {
    const { port, result, url } = await game({ map: loadMap("small.txt") })
    const first = await watcher(url)
    await first.snapshot((frame) => frame.watchers === 1)
    const second = await watcher(url)
    await first.snapshot((frame) => frame.watchers === 2)
    second.close()
    await first.snapshot((frame) => frame.watchers === 1)
    const player = await udpClient(port)
    player.send("PLAY Runner")
    await first.snapshot((frame) => frame.players.length === 1)
    const spectator = await udpClient(port)
    spectator.send("SPECTATE")
    await collectAllGold(player, spectator, gridOf(await spectator.nextStarting("DISPLAY")))
    await result
    const last = await first.snapshot((snapshot) => snapshot.end === "over")
    expect(last.players.map(({ letter, name, purse }: any) => ({ letter, name, purse }))).toEqual([{ letter: "A", name: "Runner", purse: 250 }])
    expect(last.remaining).toBe(0)
  })

  it("a watcher that half-closes its connection (sends its FIN, still reading) gives its place back", async () => {
    const { url, web } = await game()
    const { hostname, port } = new URL(url)
    const socket = owned(connect(Number(port), hostname), (socket) => socket.destroy())
    socket.on("error", () => undefined)
    const hello = readUntil(socket, /event: snapshot\n/)
    socket.write(`GET /watch HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`)
    expect(await hello).toMatch(/^HTTP\/1\.1 200 /)
    expect(web.watchers()).toBe(1)
    socket.end()
    await within(web.watchersWhere((count) => count === 0), "the half-closed watcher to leave")
  })

  it("turns watchers away beyond the limit with 503, and lets one in again once another leaves", async () => {
    const { url } = await game({ web: { watch: { maxWatchers: 2 } } })
    const first = await watcher(url)
    const second = await watcher(url)
    await first.snapshot((frame) => frame.watchers === 2)
    expect((await watcher(url)).status).toBe(503)
    second.close()
    await first.snapshot((frame) => frame.watchers === 1)
    expect((await watcher(url)).status).toBe(200)
  })

  it("a watcher that never reads does not hold the game up, and its place comes back when it goes", async () => {
    const { port, url, web } = await game({ map: loadMap("large.txt"), web: { watch: { snapshotInterval: 0 } } })
    const { hostname, port: webPort } = new URL(url)
    // Connected and asking, but never reading: its buffers fill and the game must not care.
    const stalled = owned(
      await new Promise<Socket>((resolve) => {
        const socket: Socket = connect(Number(webPort), hostname, () => resolve(socket))
      }),
      (socket) => socket.destroy()
    )
    stalled.pause()
    stalled.write(`GET /watch HTTP/1.1\r\nHost: ${hostname}:${webPort}\r\n\r\n`)
    const player = await udpClient(port)
    player.send("PLAY Pacer")
    await player.nextStarting("DISPLAY")
    // Ctrl-L: the game takes it (a snapshot for watchers each time) and answers with the view.
    for (let i = 0; i < 300; i++) {
      player.send("KEY \f")
      await player.nextStarting("DISPLAY")
    }
    expect(web.watchers()).toBe(1)
    stalled.destroy()
    await within(web.watchersWhere((count) => count === 0), "the stalled watcher to leave")
  })
})

describe("web: playing over a WebSocket", () => {
  it("PLAY and KEY go through the game like datagrams; DISPLAY comes back; a UDP player shares the game", async () => {
    const { host, port, url } = await game()
    const browser = await page(url)
    browser.send("PLAY Web Walker")
    expect(await browser.next()).toBe("OK A")
    expect(await browser.next()).toBe("GRID 21 79")
    expect(await browser.next()).toBe("GOLD 0 0 250")
    const display = await browser.next()
    expect(display.startsWith("DISPLAY\n")).toBe(true)
    expect(display).toContain("@")
    expect(host.state().players[0]).toMatchObject({ letter: "A", name: "Web Walker", client: "web#1", active: true })

    const udp = await udpClient(port)
    udp.send("PLAY Terminal")
    expect(await udp.next()).toBe("OK B")
    // The browser's player sees the terminal's arrive, when in sight, and learns of it either way.
    browser.send("KEY Q")
    expect(await browser.nextStarting("QUIT")).toBe("QUIT Thanks for playing!")
    expect(host.state().players.map((each) => [each.letter, each.active])).toEqual([["A", false], ["B", true]])
  })

  it("a move key moves the browser's player, and the spectator over UDP sees it", async () => {
    const { host, port, url } = await game()
    const browser = await page(url)
    browser.send("PLAY Mover")
    await browser.nextStarting("DISPLAY")
    const spectator = await udpClient(port)
    spectator.send("SPECTATE")
    const before = gridOf(await spectator.nextStarting("DISPLAY"))
    const from = host.state().players[0]!.position
    const key = ["h", "l", "j", "k", "y", "u", "b", "n"].find((k) => {
      const step = { h: -1, l: 1, j: main.cols, k: -main.cols, y: -main.cols - 1, u: -main.cols + 1, b: main.cols - 1, n: main.cols + 1 }[k]!
      return main.cells[from + step] === 0x2e
    })!
    browser.send(`KEY ${key}`)
    const after = gridOf(await spectator.nextStarting("DISPLAY"))
    expect(after).not.toBe(before)
    expect(host.state().players[0]!.position).not.toBe(from)
    expect(await browser.nextStarting("DISPLAY")).toContain("@")
  })

  it("malformed and unknown messages are answered as over UDP, and harm nothing", async () => {
    const { host, port, url } = await game()
    const browser = await page(url)
    browser.send("KEY h")
    expect(await browser.next()).toMatch(/^NO /)
    browser.send("PLAY")
    expect(await browser.next()).toMatch(/^(NO|QUIT) /)
    browser.send("HELLO there")
    browser.send(new Uint8Array([0xff, 0x00, 0xfe]))
    browser.send("PLAY Fine")
    expect(await browser.next()).toBe("OK A")
    const udp = await udpClient(port)
    udp.send("PLAY Also")
    expect(await udp.next()).toBe("OK B")
    expect(host.state().players.map((each) => each.name)).toEqual(["Fine", "Also"])
  })

  it("a message over 1 KB closes that socket (1009); a sender that never finishes a message is cut off", async () => {
    const { port, url } = await game()
    const big = await page(url)
    big.send(`PLAY ${"x".repeat(2000)}`)
    expect((await big.closed).code).toBe(1009)
    const huge = await page(url)
    huge.send(`PLAY ${"x".repeat(200_000)}`)
    expect((await huge.closed).code).toBe(1006)
    const udp = await udpClient(port)
    udp.send("PLAY Unharmed")
    expect(await udp.next()).toBe("OK A")
  })

  it("many small messages in one burst are not taken for one unfinished message", async () => {
    const { url } = await game()
    const { socket } = await rawWebSocket(url, "PLAY Burst", /OK A/)
    owned(socket, (socket) => socket.destroy())
    const answer = readUntil(socket, /OK A/, 3000)
    // 3,000 keys (33 KB) in one write, then the same PLAY again, answered with the same OK.
    socket.write(Buffer.concat([...Array.from({ length: 3000 }, () => maskedTextFrame("KEY z")), maskedTextFrame("PLAY Burst")]))
    expect(await answer).toMatch(/OK A/)
    expect(socket.destroyed).toBe(false)
  })

  it("closing the socket (a closed tab says 1001) quits its player", async () => {
    const { host, port, url } = await game()
    const browser = await page(url)
    browser.send("PLAY Leaver")
    await browser.nextStarting("DISPLAY")
    const spectator = await udpClient(port)
    spectator.send("SPECTATE")
    expect(gridOf(await spectator.nextStarting("DISPLAY"))).toContain("A")
    await browser.close(1001)
    const after = gridOf(await spectator.nextStarting("DISPLAY"))
    expect(after).not.toContain("A")
    expect(host.state().players[0]!.active).toBe(false)
  })

  it("what waits for a page keeps only the newest DISPLAY, in order with the rest, and knows when it is too much", () => {
    const outbox = new Outbox()
    const display = (n: number) => new TextEncoder().encode(`DISPLAY\n${n}\n`)
    const text = (data: Uint8Array | string) => (typeof data === "string" ? data : new TextDecoder().decode(data))
    outbox.push(display(1))
    outbox.push("GOLD 5 5 245")
    outbox.push(display(2))
    outbox.push("GOLD 0 5 240")
    expect(outbox.takeAll().map(text)).toEqual(["GOLD 5 5 245", "DISPLAY\n2\n", "GOLD 0 5 240"])
    expect(outbox.takeAll()).toEqual([])
    for (let i = 0; i < 256; i++) outbox.push(`NO ${i}`)
    expect(outbox.overflowing).toBe(false)
    outbox.push("NO one too many")
    expect(outbox.overflowing).toBe(true)
  })

  it("a socket that does not join in time is closed (1008)", async () => {
    const { url } = await game({ web: { play: { joinWithin: "100 millis" } } })
    const idle = await page(url)
    expect(await idle.closed).toEqual({ code: 1008, reason: "join the game first" })
  })

  it("refuses a WebSocket from another site's page (403), a plain GET (426), and connections beyond the limit (503)", async () => {
    const { url } = await game({ web: { play: { maxConnections: 1 } } })
    const { port } = new URL(url)
    expect((await rawGet(url, "/play", { ...upgradeHeaders, origin: "http://evil.example" })).status).toBe(403)
    expect((await rawGet(url, "/play", {})).status).toBe(426)
    const first = await page(url)
    first.send("PLAY One")
    await first.nextStarting("OK")
    expect((await rawGet(url, "/play", { ...upgradeHeaders, origin: `http://127.0.0.1:${port}` })).status).toBe(503)
  })
})
