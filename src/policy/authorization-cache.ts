/**
 * The engine's answers for one compiled policy set, keyed by exactly what that set can
 * read of a request (policy-reads.ts), so a repeated request costs a map lookup instead of
 * an evaluation.
 *
 * Why the cached answer is always the engine's answer:
 * - a compiled set is one policy text under one schema, and the daemon compiles afresh
 *   for every registry version (each policy or capability change), so a cache never
 *   outlives the text it answered for: it hangs off the compiled object and goes with it;
 * - the key holds the action and every attribute and id the set can read, with the
 *   values the engine is given, so two requests with one key evaluate identically; an
 *   attribute of the schema's Long type that the set only compares with Long literals is
 *   held as its interval among those literals instead, which long-intervals.ts proves
 *   gives the same evaluation for every value of the interval;
 * - only clean answers are kept: a request the engine refused, or one where a policy
 *   errored, is evaluated again every time, so errors always come from the engine;
 * - a request whose values are not of the schema's types is never looked up or kept (the
 *   engine's request validation, which the key does not model, decides those).
 * Bounded: least recently used entries go first.
 */
import type { CedarValueJson } from './cedar-engine.js';
import { regionOf } from './long-intervals.js';
import { analysePolicyReads } from './policy-reads.js';
import type { PolicyReads, ReadAnalysis } from './policy-reads.js';
import type { CompiledPolicySet } from './policy-set.js';
import { ACTOR_TYPE, CAPABILITY_TYPE, cedarSchema } from './schema.js';

/** Entries kept per compiled policy set (that is, per tenant and registry version). */
export const AUTHORIZATION_CACHE_CAPACITY = 4096;

/** An error-free answer: the decision and the engine ids of the policies that decided it. */
export interface CleanAnswer {
  readonly decision: 'allow' | 'deny';
  readonly reason: readonly string[];
}

/** What the engine is given, in the shapes it is given them. */
export interface EngineInput {
  readonly action: string;
  readonly principalId: string;
  readonly resourceId: string;
  readonly principal: Readonly<Record<string, CedarValueJson>>;
  readonly resource: Readonly<Record<string, CedarValueJson>>;
  readonly context: Readonly<Record<string, CedarValueJson>>;
}

export interface AuthorizationCacheStats {
  cacheable: boolean;
  /** Why the set is not cached, when it is not. */
  why?: string;
  size: number;
  capacity: number;
  hits: number;
  misses: number;
  /** The attributes keyed by interval rather than by value (`context.amount_micros`), sorted. */
  intervals: string[];
}

export class AuthorizationCache {
  private readonly entries = new Map<string, CleanAnswer>();
  private hits = 0;
  private misses = 0;
  private readonly plan: KeyPlan | undefined;

  constructor(
    private readonly analysis: ReadAnalysis,
    readonly capacity: number = AUTHORIZATION_CACHE_CAPACITY,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError('capacity must be at least 1');
    this.plan = analysis.cacheable ? keyPlan(analysis.reads) : undefined;
  }

  /** The key of `input`, or `undefined` when this request must go to the engine. */
  keyOf(input: EngineInput): string | undefined {
    if (this.plan === undefined || !wellTyped(input)) return undefined;
    return requestKey(this.plan, input);
  }

  get(key: string): CleanAnswer | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Re-inserting moves the entry to the young end of the map's insertion order.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  set(key: string, answer: CleanAnswer): void {
    this.entries.delete(key);
    this.entries.set(
      key,
      Object.freeze({ decision: answer.decision, reason: Object.freeze([...answer.reason]) }),
    );
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  stats(): AuthorizationCacheStats {
    const base = {
      size: this.entries.size,
      capacity: this.capacity,
      hits: this.hits,
      misses: this.misses,
      intervals: (this.plan?.intervals ?? []).map((p) => `${p.holder}.${p.attr}`).sort(),
    };
    return this.analysis.cacheable
      ? { cacheable: true, ...base }
      : { cacheable: false, why: this.analysis.why, ...base };
  }
}

const caches = new WeakMap<CompiledPolicySet, AuthorizationCache>();

/** The cache of `compiled`, made (and its policies analysed) on first use. */
export function cacheOf(compiled: CompiledPolicySet): AuthorizationCache {
  let cache = caches.get(compiled);
  if (cache === undefined) {
    cache = new AuthorizationCache(analysePolicyReads(compiled.text));
    caches.set(compiled, cache);
  }
  return cache;
}

/** Figures for tests and operators: whether `compiled` is cached, and how well. */
export function authorizationCacheStats(compiled: CompiledPolicySet): AuthorizationCacheStats {
  return cacheOf(compiled).stats();
}

type Holder = 'principal' | 'resource' | 'context';

/** How a key is made for one analysed set: each read, by value or by interval, in a fixed order. */
interface KeyPlan {
  readonly principalId: boolean;
  readonly resourceId: boolean;
  readonly contextWhole: boolean;
  readonly attributes: readonly Read[];
  readonly intervals: readonly Read[];
}

interface Read {
  readonly holder: Holder;
  readonly attr: string;
  /** Set when the attribute is keyed by its interval among these literals. */
  readonly constants?: readonly bigint[];
}

function keyPlan(reads: PolicyReads): KeyPlan {
  const attributes: Read[] = [];
  const add = (holder: Holder, names: readonly string[]) => {
    for (const attr of names) {
      const constants = reads.intervals[holder].get(attr);
      // Only a Long of the schema: wellTyped then guarantees a safe integer or absence.
      const long = SHAPES[holder].get(attr)?.type === 'Long';
      attributes.push(constants !== undefined && long ? { holder, attr, constants } : { holder, attr });
    }
  };
  add('principal', reads.principal);
  add('resource', reads.resource);
  if (reads.context !== 'all') add('context', reads.context);
  return {
    principalId: reads.principalId,
    resourceId: reads.resourceId,
    contextWhole: reads.context === 'all',
    attributes,
    intervals: attributes.filter((a) => a.constants !== undefined),
  };
}

// JSON of a list of strings, numbers, booleans and string lists is unambiguous; an absent
// attribute is null, which no attribute of the schema can hold. Each position belongs to one
// attribute and holds either its value or its interval's index for every key of one cache.
function requestKey(plan: KeyPlan, input: EngineInput): string | undefined {
  const parts: unknown[] = [input.action];
  parts.push(plan.principalId ? input.principalId : null, plan.resourceId ? input.resourceId : null);
  for (const { holder, attr, constants } of plan.attributes) {
    const record = input[holder];
    // Own attributes only: a name like `constructor` must not reach Object.prototype.
    const value = Object.hasOwn(record, attr) ? record[attr] : undefined;
    if (value === undefined) parts.push(null);
    else if (constants === undefined) parts.push(value);
    else {
      const region = regionOf(value, constants);
      if (region === undefined) return undefined;
      parts.push(region);
    }
  }
  if (plan.contextWhole) parts.push(input.context);
  return JSON.stringify(parts);
}

type Check = (value: unknown) => boolean;
type Shape = ReadonlyMap<string, { type: string; check: Check; required: boolean }>;

/** Per attribute of a record type of the schema, a test of its type. */
type Attributes = Record<string, { type: string; element?: { type: string }; required?: boolean }>;

function shapeOf(attributes: Attributes): Shape {
  return new Map(
    Object.entries(attributes).map(([name, t]) => [
      name,
      { type: t.type, check: checkOf(t), required: t.required !== false },
    ]),
  );
}

// Only the types this schema uses; any other type fails every value, so such a request
// would go to the engine rather than be trusted to a key.
function checkOf(t: { type: string; element?: { type: string } }): Check {
  if (t.type === 'String') return (v) => typeof v === 'string';
  if (t.type === 'Boolean') return (v) => typeof v === 'boolean';
  if (t.type === 'Long') return (v) => Number.isSafeInteger(v);
  if (t.type === 'Set' && t.element?.type === 'String') {
    return (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  }
  return () => false;
}

// Read from the schema the engine validates against, so the two cannot drift apart.
const SCHEMA: unknown = cedarSchema([])[''];
const SHAPES = {
  principal: shapeOf(attributesAt(SCHEMA, ['entityTypes', ACTOR_TYPE, 'shape', 'attributes'])),
  resource: shapeOf(attributesAt(SCHEMA, ['entityTypes', CAPABILITY_TYPE, 'shape', 'attributes'])),
  context: shapeOf(attributesAt(SCHEMA, ['commonTypes', 'RequestContext', 'attributes'])),
};

function attributesAt(root: unknown, path: string[]): Attributes {
  let node = root;
  for (const step of path) node = (node as Record<string, unknown> | undefined)?.[step];
  if (typeof node !== 'object' || node === null) throw new Error(`schema has no ${path.join('.')}`);
  return node as Attributes;
}

// Exactly the schema's attributes with the schema's types: the engine accepts every such
// request, so its answer depends on the values alone.
export function wellTyped(input: EngineInput): boolean {
  return (
    typeof input.action === 'string' &&
    typeof input.principalId === 'string' &&
    typeof input.resourceId === 'string' &&
    conforms(input.principal, SHAPES.principal) &&
    conforms(input.resource, SHAPES.resource) &&
    conforms(input.context, SHAPES.context)
  );
}

function conforms(record: Readonly<Record<string, unknown>>, shape: Shape): boolean {
  for (const name of Object.keys(record)) if (!shape.has(name)) return false;
  for (const [name, { check, required }] of shape) {
    const value = record[name];
    if (value === undefined ? required : !check(value)) return false;
  }
  return true;
}
