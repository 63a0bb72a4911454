/**
 * The deterministic UDP fault injector the network tests use: the relay of `nuggets proxy`
 * (see `src/kit/relay.ts`), on loopback, with a seed.
 */
export * from "../../src/kit/relay.js"
