/**
 * The lobby's contract (`src/lobby/api.ts`, `src/lobby/paths.ts`) as those who speak the API
 * meet it: the OpenAPI document a real host serves, held to the OpenAPI schema and to what
 * the host answers; `join`'s matchmaking through it (and through test/host.test.ts); the
 * ids the archive makes, held to its game id; and the page and every module of `src/`,
 * which spell no path of the lobby's of their own.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Effect } from "effect"
import { transformSync } from "esbuild"
import { readdirSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join, relative } from "node:path"
import { findGame } from "../src/cli/matchmaking.js"
import { LobbyApi } from "../src/lobby/api.js"
import { apiPaths } from "../src/lobby/paths.js"
import { isGameId } from "../src/lobby/schemas.js"
import { rulesFor } from "../src/protocol/dialect.js"
import { projectDir } from "./cli/process.js"
import { call, postGame, startHost, type TestHost } from "./host/harness.js"
import { TestClient } from "./server/harness.js"

let host: TestHost
beforeAll(async () => {
  host = await startHost({ maxGames: 2 })
})
afterAll(async () => {
  await host?.stop()
})

/** The contract's endpoints as OpenAPI names them, `GET /api/games/{id}`, but its own description. */
const declared = (): Array<string> => {
  const endpoints: Array<string> = []
  HttpApi.reflect(LobbyApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (endpoint.path !== apiPaths.openApi) endpoints.push(`${endpoint.method} ${endpoint.path.replace(/:(\w+)/g, "{$1}")}`)
    }
  })
  return endpoints.sort()
}

describe("the lobby's contract", () => {
  it("/api/openapi.json is a valid OpenAPI 3 document naming every path and method of the contract, and only the answers it gives", async () => {
    const answer = await call(host.url, apiPaths.openApi)
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8")
    const document = answer.body
    const checked = await new Validator().validate(document)
    expect(checked.errors).toBeUndefined()
    expect(checked.valid).toBe(true)
    expect(document.openapi).toMatch(/^3\./)
    const described = Object.entries(document.paths as Record<string, object>)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
    expect(described.sort()).toEqual(declared())
    expect(declared()).toEqual(expect.arrayContaining(["GET /api/games", "POST /api/games", "GET /api/games/{id}", "GET /api/archive/{id}/recording"]))
    // Every path the contract names, its own description aside.
    const paths = Object.values(apiPaths).filter((path) => path !== apiPaths.openApi).map((path) => path.replace(/:(\w+)/g, "{$1}"))
    expect(Object.keys(document.paths).sort()).toEqual(paths.sort())
    // HttpApi's own decode error is never answered, so never offered.
    expect(JSON.stringify(document)).not.toContain("HttpApiDecodeError")
    const start = document.paths["/api/games"].post
    expect(Object.keys(start.responses).sort()).toEqual(["201", "400", "403", "413", "429", "503"])
    expect(start.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/NewGame")
    expect(document.components.schemas.NewGame.properties).toHaveProperty("dialect")
  })

  it("each refusal the host gives is one the document offers for that path, with the body it describes", async () => {
    const document = (await call(host.url, apiPaths.openApi)).body
    const cases: ReadonlyArray<readonly [method: string, path: string, template: string, body?: string]> = [
      ["POST", "/api/games", "/api/games", "{bad"],
      ["POST", "/api/games", "/api/games", JSON.stringify({ map: "x".repeat(5000) })],
      ["GET", "/api/games/nope", "/api/games/{id}"],
      ["GET", "/api/games/20990101-000000-zzzz", "/api/games/{id}"],
      ["GET", "/api/archive?limit=ten", "/api/archive"],
      ["GET", "/api/archive?before=nope", "/api/archive"],
      ["GET", "/api/archive/nope/recording", "/api/archive/{id}/recording"],
      ["GET", "/api/leaderboard?limit=0", "/api/leaderboard"]
    ]
    for (const [method, path, template, body] of cases) {
      const answer = await call(host.url, path, { method, ...(body === undefined ? {} : { body }) })
      const offered = document.paths[template][method.toLowerCase()].responses[String(answer.status)]
      expect(offered, `${method} ${path}: ${answer.status}`).toBeDefined()
      const schema = document.components.schemas[offered.content["application/json; charset=utf-8"].schema.$ref.split("/").at(-1)]
      expect(schema, path).toMatchObject({ type: "object", required: ["error"], properties: { error: { type: "string" } }, additionalProperties: false })
      expect(Object.keys(answer.body), path).toEqual(["error"])
    }
  })

  it("the ids the archive makes are the contract's game ids", async () => {
    const started = await Promise.all([postGame(host.url), postGame(host.url)])
    for (const { body } of started) expect(isGameId(body.id), body.id).toBe(true)
    // And what the contract refuses in a path: a path never names anything else.
    for (const id of ["20250601-143205-K3F9", "20250601-143205-k3f", "../x", "2025-06-01-143205-k3f9"]) expect(isGameId(id), id).toBe(false)
  })
})

describe("join's side of the contract: a lobby's refusals and a server that is no lobby, in one line each", () => {
  let other: Server
  let otherUrl: URL
  beforeAll(async () => {
    other = createServer((_, response) => response.writeHead(404, { "content-type": "text/html" }).end("<h1>Not here</h1>"))
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve))
    otherUrl = new URL(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`)
  })
  afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())))

  it("a lobby at its most games, each of them full, says why, as the host words it", async () => {
    const full = await startHost({ maxGames: 1, open: 1, rulesOf: (choice) => ({ ...rulesFor(choice.dialect, choice.variant), maxPlayers: 1 }) })
    const player = await TestClient.open(full.games.running()[0]!.port)
    try {
      player.send("PLAY Ann")
      expect(await player.next()).toBe("OK A")
      const refused = await Effect.runPromise(Effect.flip(findGame(new URL(full.url), "3 seconds")))
      expect(refused.message).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+ — the host runs its most games at once \(1\).* \(every game is full, and no new one could be opened\)$/
      )
    } finally {
      await player.close()
      await full.stop()
    }
  })

  it("a web server that is not a lobby", async () => {
    const refused = await Effect.runPromise(Effect.flip(findGame(otherUrl, "3 seconds")))
    expect(refused.message).toBe(`http://${otherUrl.host} — not a nuggets lobby (it answered 404 with no JSON)`)
  })
})

/** Every TypeScript file under `dir`. */
const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

describe("one home for the lobby's paths", () => {
  it("no module of src/ but the contract's paths.ts quotes a path of the lobby: the host, the page and join all take them from there", () => {
    const src = join(projectDir, "src")
    const lobbyPath = /(["'`])\/(api\b|events\b|games\/|archive\b|leaderboard\b)/
    const spelled = sources(src)
      .filter((file) => relative(src, file) !== join("lobby", "paths.ts"))
      .flatMap((file) => {
        // The code without its comments: what it says, not what it tells of.
        const { code } = transformSync(readFileSync(file, "utf8"), { loader: "ts", minifyWhitespace: true, legalComments: "none" })
        const found = lobbyPath.exec(code)
        return found === null ? [] : [`${relative(src, file)}: ${code.slice(found.index, found.index + 40)}`]
      })
    expect(spelled).toEqual([])
    // The test can fail: the module it exempts quotes them.
    expect(lobbyPath.test(readFileSync(join(src, "lobby", "paths.ts"), "utf8"))).toBe(true)
  })
})
