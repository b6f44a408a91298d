import canonicalize from 'canonicalize';
import { isWellFormedUnicode } from './encoding.js';

/**
 * Why a value has no RFC 8785 form. `canonicalize` on its own would call `toJSON`
 * (a Date becomes a string), drop `undefined` and symbols, and print a sparse array as
 * invalid JSON; evidence hashes must commit to exactly the JSON data given, so those
 * are refused before serialisation.
 */
export interface CanonicalProblem {
  kind: 'lone_surrogate' | 'non_finite_number' | 'unsupported_value' | 'cycle';
  /** JSON-pointer-like location of the offending value, `''` for the root. */
  path: string;
}

/** The first reason `value` cannot be serialised as RFC 8785 JSON, or `undefined` when it can. */
export function findCanonicalProblem(value: unknown): CanonicalProblem | undefined {
  return inspect(value, '', new Set<object>());
}

function inspect(value: unknown, path: string, ancestors: Set<object>): CanonicalProblem | undefined {
  if (value === null || typeof value === 'boolean') return undefined;
  if (typeof value === 'string') {
    return isWellFormedUnicode(value) ? undefined : { kind: 'lone_surrogate', path };
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { kind: 'non_finite_number', path };
  }
  if (typeof value !== 'object') return { kind: 'unsupported_value', path };
  if (ancestors.has(value)) return { kind: 'cycle', path };
  ancestors.add(value);
  const problem = Array.isArray(value)
    ? inspectArray(value, path, ancestors)
    : inspectObject(value, path, ancestors);
  ancestors.delete(value);
  return problem;
}

function inspectArray(value: unknown[], path: string, ancestors: Set<object>): CanonicalProblem | undefined {
  if (Object.getPrototypeOf(value) !== Array.prototype) return { kind: 'unsupported_value', path };
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) return { kind: 'unsupported_value', path: `${path}/${i}` };
    const problem = inspect(value[i], `${path}/${i}`, ancestors);
    if (problem) return problem;
  }
  return undefined;
}

function inspectObject(value: object, path: string, ancestors: Set<object>): CanonicalProblem | undefined {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return { kind: 'unsupported_value', path };
  if (Object.getOwnPropertySymbols(value).length > 0) return { kind: 'unsupported_value', path };
  for (const [key, child] of Object.entries(value)) {
    const childPath = `${path}/${key}`;
    if (!isWellFormedUnicode(key)) return { kind: 'lone_surrogate', path: childPath };
    const problem = inspect(child, childPath, ancestors);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * CJSON(v) of evidence-format.md §1: the RFC 8785 canonical JSON text of a plain JSON value.
 * Throws TypeError for lone surrogates, cycles and non-JSON values (undefined, functions,
 * bigint, Dates, class instances, sparse arrays) and RangeError for NaN and ±Infinity.
 */
export function cjson(value: unknown): string {
  // Every journal append canonicalises its record and its entry, and every exported line is
  // checked against its canonical form: those are plain values whose keys already stand in
  // sorted order, which the engine's own serialiser writes exactly. Unsorted plain values take
  // the single pass; anything else the checked path below, which names the problem.
  const order = plainOrder(value, 0);
  if (order === 'sorted' && !inheritedToJson()) return JSON.stringify(value);
  if (order !== 'not_plain') {
    const fast = canonicalPlain(value, 0);
    if (fast !== undefined) return fast;
  }
  const problem = findCanonicalProblem(value);
  if (problem) {
    const where = problem.path === '' ? 'the value' : `at ${problem.path}`;
    if (problem.kind === 'non_finite_number') throw new RangeError(`CJSON: non-finite number ${where}`);
    throw new TypeError(`CJSON: ${problem.kind.replace('_', ' ')} ${where}`);
  }
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('CJSON: the value has no JSON form');
  return text;
}

/** Deeper than this, the checked path takes over (it also tells a cycle from a deep value). */
const PLAIN_DEPTH = 64;

/**
 * Whether `value` is plain JSON data (as `canonicalPlain` accepts it) and, if so, whether every
 * object's own keys are already in strictly ascending UTF-16 order. For a sorted plain value
 * `JSON.stringify` writes the RFC 8785 text: it emits own keys in `Object.keys` order and uses
 * the same string and number forms `canonicalPlain` does. (Integer-like keys, which the engine
 * orders numerically, only pass when that order is also the UTF-16 one.)
 */
function plainOrder(value: unknown, depth: number): 'sorted' | 'unsorted' | 'not_plain' {
  switch (typeof value) {
    case 'string':
      return isWellFormedUnicode(value) ? 'sorted' : 'not_plain';
    case 'number':
      return Number.isFinite(value) ? 'sorted' : 'not_plain';
    case 'boolean':
      return 'sorted';
    case 'object':
      break;
    default:
      return 'not_plain';
  }
  if (value === null) return 'sorted';
  if (depth >= PLAIN_DEPTH) return 'not_plain';
  let order: 'sorted' | 'unsorted' = 'sorted';
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return 'not_plain';
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return 'not_plain';
      const item = plainOrder(value[i], depth + 1);
      if (item === 'not_plain') return item;
      if (item === 'unsorted') order = item;
    }
    return order;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return 'not_plain';
  if (Object.getOwnPropertySymbols(value).length > 0) return 'not_plain';
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (!isWellFormedUnicode(key)) return 'not_plain';
    if (i > 0 && !(keys[i - 1]! < key)) order = 'unsorted';
    const item = plainOrder((value as Record<string, unknown>)[key], depth + 1);
    if (item === 'not_plain') return item;
    if (item === 'unsorted') order = item;
  }
  return order;
}

/** `JSON.stringify` would call a `toJSON` added to the shared prototypes; the single pass never does. */
function inheritedToJson(): boolean {
  return (
    (Object.prototype as { toJSON?: unknown }).toJSON !== undefined ||
    (Array.prototype as { toJSON?: unknown }).toJSON !== undefined
  );
}

/**
 * RFC 8785 text of a value made only of null, booleans, finite numbers, well-formed strings,
 * plain arrays without holes and plain objects without symbols, in a single walk; undefined
 * for anything else, so the caller falls back to the checked path. Same bytes as
 * `canonicalize` on those values: keys sorted by UTF-16 code units, JSON.stringify for
 * strings and numbers.
 */
function canonicalPlain(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return isWellFormedUnicode(value) ? JSON.stringify(value) : undefined;
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (depth >= PLAIN_DEPTH) return undefined;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return undefined;
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return undefined;
      const item = canonicalPlain(value[i], depth + 1);
      if (item === undefined) return undefined;
      out += i === 0 ? item : `,${item}`;
    }
    return `${out}]`;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  if (Object.getOwnPropertySymbols(value).length > 0) return undefined;
  const keys = Object.keys(value).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (!isWellFormedUnicode(key)) return undefined;
    const item = canonicalPlain((value as Record<string, unknown>)[key], depth + 1);
    if (item === undefined) return undefined;
    out += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${item}`;
  }
  return `${out}}`;
}
