/**
 * The Cedar engine (`@cedar-policy/cedar-wasm`), loaded with the one V8 setting it needs.
 *
 * Node 20's TurboFan inlines a JS-to-Wasm call into its JavaScript caller. When a lazy
 * deoptimization lands while such an inlined call is on the stack (the engine calls back into
 * JavaScript to read the request, and those callbacks can invalidate the caller's optimized
 * code), V8 aborts the whole process ("Fatal error: unreachable code" in
 * `Deoptimizer::DoComputeBuiltinContinuation`). The policy step's mix of requests reproduced
 * it within seconds; a daemon that aborts mid-decision loses no acknowledged decision but
 * drops every request in flight. Turning that one inlining off costs the engine nothing
 * measurable (`npm run bench -- policy`) and is set before any engine call is compiled, as
 * every module of this project reaches the engine through this file.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--no-turbo-inline-js-wasm-calls');

export * from '@cedar-policy/cedar-wasm/nodejs';
