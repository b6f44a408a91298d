/**
 * What a policy set can read of a request: the attributes of the principal, the resource
 * and the context its policies name, and whether they compare the principal or resource
 * itself (its id). An answer of the engine depends on nothing else, so two requests that
 * agree on all of it get the same answer; the authorization cache keys on exactly that.
 *
 * The analysis walks the engine's own JSON form of each policy (`policyToJson`) and is
 * conservative: an expression it does not know, an attribute read from anything but the
 * request's variables (an entity literal, a conditional that yields an entity, a tag), or
 * a template slot makes the whole set uncacheable. Over this schema that is sound because
 * the request's entities have no parents (so `in` compares ids) and no attribute holds an
 * entity (so no entity is reachable from another).
 *
 * It also finds the attributes the set uses only in comparisons with Long literals
 * (`context.amount_micros > 1000000000`, `3 > context.tier`), with those literals, so the
 * cache can key them by interval (long-intervals.ts says why that is sound). One use of any
 * other kind anywhere in the set keeps the attribute keyed by its exact value.
 */
import { policySetTextToParts, policyToJson } from './cedar-engine.js';
import { longLiteral, sortedConstants } from './long-intervals.js';

export interface PolicyReads {
  /** The principal's id is compared (scope `==`/`in`, or the variable used as a value). */
  readonly principalId: boolean;
  readonly resourceId: boolean;
  /** Attribute names read with `.` or `has`, sorted. */
  readonly principal: readonly string[];
  readonly resource: readonly string[];
  /** `'all'` when the context record is used as a whole value. */
  readonly context: readonly string[] | 'all';
  /**
   * Of the attributes above, those used only in comparisons with Long literals (and in
   * `has` tests), each with its literals, distinct and ascending. Only a name listed above
   * is ever here; the cache keys it by interval when the schema types it Long.
   */
  readonly intervals: {
    readonly principal: ReadonlyMap<string, readonly bigint[]>;
    readonly resource: ReadonlyMap<string, readonly bigint[]>;
    readonly context: ReadonlyMap<string, readonly bigint[]>;
  };
}

export type ReadAnalysis = { cacheable: true; reads: PolicyReads } | { cacheable: false; why: string };

type Var = 'principal' | 'action' | 'resource' | 'context';
type Holder = 'principal' | 'resource' | 'context';

class Unanalysable extends Error {}

const BINARY = new Set([
  '==',
  '!=',
  'in',
  '<',
  '<=',
  '>',
  '>=',
  '&&',
  '||',
  '+',
  '-',
  '*',
  'contains',
  'containsAll',
  'containsAny',
]);
// Comparisons that, against a Long literal, are the same for every value of one interval.
const COMPARISONS = new Set(['<', '<=', '>', '>=', '==', '!=']);
const UNARY = new Set(['!', 'neg', 'isEmpty']);
// Extension functions compute from their arguments alone; none reads an entity.
const EXTENSION_FUNCTIONS = new Set([
  'decimal',
  'ip',
  'datetime',
  'duration',
  'lessThan',
  'lessThanOrEqual',
  'greaterThan',
  'greaterThanOrEqual',
  'isIpv4',
  'isIpv6',
  'isLoopback',
  'isMulticast',
  'isInRange',
  'offset',
  'durationSince',
  'toDate',
  'toTime',
  'toMilliseconds',
  'toSeconds',
  'toMinutes',
  'toHours',
  'toDays',
]);

class Collector {
  principalId = false;
  resourceId = false;
  readonly principal = new Set<string>();
  readonly resource = new Set<string>();
  readonly context = new Set<string>();
  contextWhole = false;
  /** `holder.attr` of every attribute with a use other than a comparison with a Long literal. */
  readonly exact = new Set<string>();
  /** `holder.attr` to the Long literals it is compared with. */
  readonly constants = new Map<string, Set<bigint>>();

  /** A variable used as a value: for an entity that exposes its id, for the context all of it. */
  whole(v: Var): void {
    if (v === 'principal') this.principalId = true;
    else if (v === 'resource') this.resourceId = true;
    else if (v === 'context') this.contextWhole = true;
    // The action's id is always part of the key.
  }

  /** A read of `v.attr`; `exact` unless the read is a presence test or a comparison with a Long literal. */
  attribute(v: Var, attr: string, exact = true): void {
    if (v === 'principal') this.principal.add(attr);
    else if (v === 'resource') this.resource.add(attr);
    else if (v === 'context') this.context.add(attr);
    else throw new Unanalysable('reads an attribute of the action');
    if (exact) this.exact.add(`${v}.${attr}`);
  }

  /** `v.attr` compared with the Long `constant`. */
  threshold(v: Var, attr: string, constant: bigint): void {
    this.attribute(v, attr, false);
    const name = `${v}.${attr}`;
    let set = this.constants.get(name);
    if (set === undefined) this.constants.set(name, (set = new Set()));
    set.add(constant);
  }

  /** Of `holder`'s attributes, those compared with Long literals and used in no other way. */
  intervals(holder: Holder): ReadonlyMap<string, readonly bigint[]> {
    const found = new Map<string, readonly bigint[]>();
    if (holder === 'context' && this.contextWhole) return found;
    for (const [name, constants] of this.constants) {
      const [of, attr] = splitName(name);
      if (of === holder && !this.exact.has(name)) found.set(attr, sortedConstants(constants));
    }
    return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  scope(v: 'principal' | 'resource', scope: unknown): void {
    const op = field(scope, 'op');
    if (op === 'All') return;
    if (op === 'is' && field(scope, 'in') === undefined) return; // the type is fixed by the schema
    const target = op === 'is' ? field(scope, 'in') : scope;
    if ((op === '==' || op === 'in' || op === 'is') && namesEntities(target)) {
      this.whole(v);
      return;
    }
    throw new Unanalysable(`has a ${v} scope of unknown form ${JSON.stringify(op)}`);
  }

  expr(e: unknown): void {
    if (!isObject(e)) throw new Unanalysable('has an expression of unknown form');
    const keys = Object.keys(e);
    if (keys.length !== 1) throw new Unanalysable('has an expression of unknown form');
    const op = keys[0]!;
    const body = e[op];
    if (op === 'Value') return; // a literal, entity literals included: compared by id only
    if (op === 'Var') return this.whole(variable(body));
    if (op === '.' || op === 'has') return this.access(op, body);
    if (COMPARISONS.has(op)) {
      const left = field(body, 'left');
      const right = field(body, 'right');
      const compared = withLiteral(left, right) ?? withLiteral(right, left);
      if (compared !== undefined) return this.threshold(compared.v, compared.attr, compared.constant);
    }
    if (BINARY.has(op)) {
      this.expr(field(body, 'left'));
      this.expr(field(body, 'right'));
      return;
    }
    if (UNARY.has(op)) return this.expr(field(body, 'arg'));
    if (op === 'is') {
      const left = field(body, 'left');
      const inExpr = field(body, 'in');
      // `x is T` alone reads only the type, which the schema fixes for each variable.
      if (inExpr === undefined && isVar(left)) return;
      this.expr(left);
      if (inExpr !== undefined) this.expr(inExpr);
      return;
    }
    if (op === 'like') return this.expr(field(body, 'left'));
    if (op === 'if-then-else') {
      this.expr(field(body, 'if'));
      this.expr(field(body, 'then'));
      this.expr(field(body, 'else'));
      return;
    }
    if (op === 'Set') return this.each(body);
    if (op === 'Record') {
      if (!isObject(body)) throw new Unanalysable('has a record of unknown form');
      for (const v of Object.values(body)) this.expr(v);
      return;
    }
    if (EXTENSION_FUNCTIONS.has(op)) return this.each(body);
    throw new Unanalysable(`uses ${JSON.stringify(op)}, which the analysis does not know`);
  }

  private each(list: unknown): void {
    if (!Array.isArray(list)) throw new Unanalysable('has a list of unknown form');
    for (const item of list) this.expr(item);
  }

  private access(op: '.' | 'has', body: unknown): void {
    const left = field(body, 'left');
    const attr = field(body, 'attr');
    // `x has a.b` tests a path; keying on all of `a` covers every step below it.
    const first: unknown = Array.isArray(attr) ? attr[0] : attr;
    if (typeof first !== 'string') throw new Unanalysable(`has a ${op} of unknown form`);
    if (!isVar(left)) {
      throw new Unanalysable(`reads attribute "${first}" of an expression other than a request variable`);
    }
    // A one-step `has` reads presence alone, which every key keeps (an absent attribute is
    // null); a longer path tests what the attribute holds.
    const presence = op === 'has' && (!Array.isArray(attr) || attr.length === 1);
    this.attribute(variable(left['Var']), first, !presence);
  }
}

/** What the policy set `text` can read of a request, or why that cannot be known soundly. */
export function analysePolicyReads(text: string): ReadAnalysis {
  const parts = policySetTextToParts(text);
  if (parts.type !== 'success') return { cacheable: false, why: 'the policy set does not parse' };
  if (parts.policy_templates.length > 0) return { cacheable: false, why: 'the policy set holds templates' };
  const c = new Collector();
  try {
    for (const policyText of parts.policies) {
      const json = policyToJson(policyText);
      if (json.type !== 'success') throw new Unanalysable('a policy does not convert to JSON');
      const policy: unknown = json.json;
      c.scope('principal', field(policy, 'principal'));
      c.scope('resource', field(policy, 'resource'));
      const action = field(policy, 'action');
      // The action's id is always part of the key; its scope only has to be static.
      if (field(action, 'op') !== 'All' && !namesEntities(action)) {
        throw new Unanalysable('has an action scope of unknown form');
      }
      const conditions = field(policy, 'conditions') ?? [];
      if (!Array.isArray(conditions)) throw new Unanalysable('has conditions of unknown form');
      for (const condition of conditions) c.expr(field(condition, 'body'));
    }
  } catch (err) {
    if (err instanceof Unanalysable) return { cacheable: false, why: `a policy ${err.message}` };
    throw err;
  }
  return {
    cacheable: true,
    reads: {
      principalId: c.principalId,
      resourceId: c.resourceId,
      principal: [...c.principal].sort(),
      resource: [...c.resource].sort(),
      context: c.contextWhole ? 'all' : [...c.context].sort(),
      intervals: {
        principal: c.intervals('principal'),
        resource: c.intervals('resource'),
        context: c.intervals('context'),
      },
    },
  };
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function field(x: unknown, name: string): unknown {
  return isObject(x) ? x[name] : undefined;
}

// `attribute` as `a.x` of a request variable, compared with `literal`, a Long literal.
function withLiteral(
  attribute: unknown,
  literal: unknown,
): { v: Var; attr: string; constant: bigint } | undefined {
  const access = field(attribute, '.');
  if (!isObject(attribute) || Object.keys(attribute).length !== 1 || access === undefined) return undefined;
  const left = field(access, 'left');
  const attr = field(access, 'attr');
  if (!isVar(left) || typeof attr !== 'string') return undefined;
  if (!isObject(literal) || Object.keys(literal).length !== 1 || !('Value' in literal)) return undefined;
  const constant = longLiteral(literal['Value']);
  return constant === undefined ? undefined : { v: variable(left['Var']), attr, constant };
}

function splitName(name: string): [Holder, string] {
  const dot = name.indexOf('.');
  return [name.slice(0, dot) as Holder, name.slice(dot + 1)];
}

function isVar(x: unknown): x is { Var: Var } {
  return isObject(x) && Object.keys(x).length === 1 && typeof x['Var'] === 'string';
}

function variable(v: unknown): Var {
  if (v === 'principal' || v === 'action' || v === 'resource' || v === 'context') return v;
  throw new Unanalysable(`names an unknown variable ${JSON.stringify(v)}`);
}

// A static scope names an entity or a list of them; anything else (a slot) is not analysed.
function namesEntities(scope: unknown): boolean {
  return field(scope, 'entity') !== undefined || Array.isArray(field(scope, 'entities'));
}
