import { Context, Effect, Layer } from "effect"

/**
 * Whether the host takes new games and new players now, and if not, why: it is closing
 * (a drain), or, in a fleet, it cannot renew its lease. Asked at each new game and each
 * PLAY, and by `/readyz`.
 */
export interface AdmissionService {
  readonly admits: () => boolean
  /** Why the host takes no new game or player now; undefined while it does. */
  readonly refusing: () => string | undefined
  /** From now on the host takes no new game and no new player: it is closing. */
  readonly close: () => void
}

export class Admission extends Context.Tag("nuggets/Admission")<Admission, AdmissionService>() {}

/** Admission that also asks `holds`, which says why not, if anything. */
export const makeAdmission = (holds: () => string | undefined = () => undefined): AdmissionService => {
  let closing = false
  const refusing = () => (closing ? "the host is closing: it takes no new game and no new player" : holds())
  return { admits: () => refusing() === undefined, refusing, close: () => void (closing = true) }
}

/** A lone host: it admits until it closes. */
export const alwaysAdmitting: Layer.Layer<Admission> = Layer.sync(Admission, () => makeAdmission())

export const admissionLayer = <R>(holds: Effect.Effect<() => string | undefined, never, R>): Layer.Layer<Admission, never, R> =>
  Layer.effect(Admission, Effect.map(holds, makeAdmission))
