import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { safeHeaders } from "./headers.js"

/**
 * What an operator's tools ask of a server that serves the web: whether it is alive,
 * whether it takes new games and players now (a load balancer's question), and, for a host,
 * its metrics in Prometheus' text format.
 */
export const operationsPaths = {
  /** 200 for as long as the process runs. */
  live: "/livez",
  /** 200 while it takes new games and players; 503, saying why, while it does not. */
  ready: "/readyz",
  metrics: "/metrics"
} as const

export interface Operations {
  /** Why it takes no new game or player now; undefined while it does. */
  readonly refusing: () => string | undefined
  /** The scrape, when it has metrics. */
  readonly metrics?: Effect.Effect<{ readonly text: string; readonly contentType: string }>
}

const text = (status: number, body: string, contentType = "text/plain; charset=utf-8") =>
  HttpServerResponse.text(body, { status, contentType, headers: { ...safeHeaders, "cache-control": "no-store" } })

/** The routes of `operationsPaths`, on any router. */
export const operationsRoutes = <E, R>(router: HttpRouter.HttpRouter<E, R>, operations: Operations) => {
  const withHealth = router.pipe(
    HttpRouter.get(operationsPaths.live, Effect.succeed(text(200, "alive\n"))),
    HttpRouter.get(operationsPaths.ready, Effect.sync(() => {
      const why = operations.refusing()
      return why === undefined ? text(200, "ready\n") : text(503, `not ready: ${why}\n`)
    }))
  )
  const scrape = operations.metrics
  return scrape === undefined
    ? withHealth
    : withHealth.pipe(HttpRouter.get(operationsPaths.metrics, Effect.map(scrape, ({ contentType, text: body }) => text(200, body, contentType))))
}
