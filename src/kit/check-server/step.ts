import type { Effect } from "effect"
import type { UdpError } from "../../net/udp.js"
import type { Failure } from "../conformance/report.js"
import type { Session, Stop } from "./session.js"

/**
 * A check is made of steps run in a fixed order; a step reports into one check. Steps that
 * a check needs run first, also with `--only`, so that each check can be run alone.
 */

export interface StepContext {
  readonly session: Session
  /** Records a failure and goes on. */
  readonly fail: (failure: Failure) => void
  /** Something worth saying even when the check passes. */
  readonly note: (text: string) => void
  /** How many failures the check has so far. */
  readonly failures: () => number
}

export interface Step {
  readonly name: string
  /** The check it reports into. */
  readonly check: string
  /** Steps that must have run before it. */
  readonly needs: ReadonlyArray<string>
  readonly run: (context: StepContext) => Effect.Effect<void, Stop | UdpError>
}

export interface CheckInfo {
  readonly name: string
  readonly title: string
  /** Judged only with --map. */
  readonly needsMap?: boolean
}
