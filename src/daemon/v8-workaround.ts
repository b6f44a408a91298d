import { setFlagsFromString } from 'node:v8';

/**
 * Node 20's V8 can abort the whole process ("Fatal error ... unreachable code" in
 * Deoptimizer::DoComputeBuiltinContinuation) when optimized code that inlined a JS-to-Wasm
 * call, such as the policy engine's `statefulIsAuthorized` inside `authorize`, is lazily
 * deoptimized while the Wasm call runs. Measured here under sustained decision load: the
 * daemon died in 3 of 13 five-second runs with inlining, in none of 24 without it. Turning
 * that one inlining off costs nothing measurable. Must run before the policy engine is hot.
 */
export function avoidJsToWasmInliningCrash(): void {
  setFlagsFromString('--no-turbo-inline-js-wasm-calls');
}
