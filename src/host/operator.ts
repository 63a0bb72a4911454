import { Context, Layer, Option } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"

/**
 * The host's operator's token (`--admin-token-file`), which `DELETE /api/games/ID` asks
 * for: none, and no one may. Compared in constant time (as digests of equal length), and
 * never written anywhere: the log says that a request was refused, not what it carried.
 */
export class OperatorToken extends Context.Tag("nuggets/OperatorToken")<OperatorToken, Option.Option<string>>() {}

export const noOperator: Layer.Layer<OperatorToken> = Layer.succeed(OperatorToken, Option.none())

export const operatorLayer = (token: Option.Option<string>): Layer.Layer<OperatorToken> => Layer.succeed(OperatorToken, token)

/** What an `Authorization` header says of the operator: the token, none, or another. */
export type Credentials = "operator" | "missing" | "wrong"

const digest = (text: string) => createHash("sha256").update(text).digest()

export const credentials = (token: Option.Option<string>, authorization: string | undefined): Credentials => {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1]
  if (given === undefined) return "missing"
  if (Option.isNone(token)) return "wrong"
  return timingSafeEqual(digest(given), digest(token.value)) ? "operator" : "wrong"
}
