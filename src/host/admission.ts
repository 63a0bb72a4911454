import { Context, Layer } from "effect"

/**
 * Whether the host takes new games and new players now. A lone host always does; a host of
 * a fleet does not while it cannot renew its lease. Asked at each new game and each PLAY.
 */
export class Admission extends Context.Tag("nuggets/Admission")<Admission, { readonly admits: () => boolean }>() {}

export const alwaysAdmitting: Layer.Layer<Admission> = Layer.succeed(Admission, { admits: () => true })
