import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Predicate, Schema } from "effect"

/**
 * How the lobby's API says no (`api.ts` declares which endpoint says which): a status, and
 * `{"error": "..."}` for body, the reason in words; nothing else happens.
 */

/** Every answer's encoding, a refusal or not: JSON, in UTF-8, as its content type says. */
export const jsonEncoding: HttpApiSchema.Encoding = { kind: "Json", contentType: "application/json; charset=utf-8" }
export const jsonContentType = jsonEncoding.contentType

/** The largest body `POST /api/games` reads: its four fields take a hundred bytes. */
export const maxBodyBytes = 4096

const ErrorBody = Schema.Struct({ error: Schema.String.annotations({ description: "why, in words" }) })
/** The body of every refusal. */
export type ErrorJson = typeof ErrorBody.Type

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", ErrorBody.fields) {}
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", ErrorBody.fields) {}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", ErrorBody.fields) {}
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", ErrorBody.fields) {}
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", ErrorBody.fields) {}
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", ErrorBody.fields) {}
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", ErrorBody.fields) {}
export type Refusal = BadRequest | Unauthorized | Forbidden | NotFound | PayloadTooLarge | TooManyRequests | Unavailable

/**
 * A refusal as the API sends it: its status, and `{"error": "..."}` for its body, without
 * the `_tag` (which refusal it is, its status says).
 */
const sent = <R extends Refusal, I>(refusal: Schema.Schema<R, I> & (new(body: ErrorJson) => R), status: number, description: string) =>
  Schema.transform(ErrorBody, Schema.typeSchema(refusal), {
    strict: true,
    decode: (body) => new refusal(body),
    encode: ({ error }) => ({ error })
  }).annotations({ ...HttpApiSchema.annotations({ status, description }), [HttpApiSchema.AnnotationEncoding]: jsonEncoding })

export const badRequest = "the request is not one it takes: a body that is not JSON, a field it does not take, an unknown map, a bad query"
export const refusals = {
  BadRequest: sent(BadRequest, 400, badRequest),
  Unauthorized: sent(Unauthorized, 401, "an operator's request without its token (Authorization: Bearer TOKEN)"),
  Forbidden: sent(Forbidden, 403, "a request from another site's page, or an operator's with a token that is not the host's"),
  NotFound: sent(NotFound, 404, "no such game, or its recording is gone"),
  PayloadTooLarge: sent(PayloadTooLarge, 413, `a body over ${maxBodyBytes} bytes`),
  TooManyRequests: sent(
    TooManyRequests,
    429,
    "the host runs its most games, or more new games were asked for than its pace allows: try after `retry-after`"
  ),
  Unavailable: sent(Unavailable, 503, "the archive cannot answer, or the host cannot start a game or is stopping")
} satisfies { readonly [Tag in Refusal["_tag"]]: unknown }

/** The status a refusal is sent with. */
export const statusOf = (refusal: Refusal): number => HttpApiSchema.getStatusError(refusals[refusal._tag])

export const isRefusal = (u: unknown): u is Refusal => Object.keys(refusals).some((tag) => Predicate.isTagged(u, tag))

