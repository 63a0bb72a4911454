/**
 * The deterministic UDP fault injector the network tests use: the relay of `nuggets proxy`
 * (see `src/kit/proxy/relay.ts`), on loopback, with a seed.
 */
export * from "../../src/kit/proxy/relay.js"
