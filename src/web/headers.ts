import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/** Headers for every page and feed: nothing cached, sniffed, framed or referred. */
export const safeHeaders: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

/** A refusal: the status and one short line of text saying why. */
export const refusal = (status: number, text: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(`${text}\n`, { status, headers: { ...safeHeaders, ...headers } })
