/**
 * A policy test suite: a YAML (or JSON) file whose name ends `_test` before its extension,
 * naming principals, capabilities and cases, each case a request put to the policy step
 * and the verdict it expects. Parsing is pure: the text comes in, a checked suite or one
 * error listing every problem (file:line:column, the case and the field) comes out.
 *
 * The suite speaks the deployment document's words (snake_case, `amount_usd`, `tier`,
 * `irreversible`, `custody`), so what an operator registers and what a test names read
 * the same.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { ACTOR_KINDS, ROLES, type ActorKind } from '../core/actor.js';
import { CAPABILITY_NAME, CUSTODIES, MAX_TIER, VERB, type Custody } from '../core/capability.js';
import { SvcError } from '../core/errors.js';
import { parseUsdText, type Micros } from '../core/money.js';

/** `refunds_test.yaml`, `limits_test.json`: what a directory is searched for. */
export const SUITE_FILE = /_test\.(ya?ml|json)$/;

const REFUSAL_CODES = ['policy_denied', 'no_policy'] as const;
const MAX_CASES = 10_000;
const MAX_REPORTED = 20;
const MAX_ALIASES = 100;

export interface SuitePrincipal {
  kind: ActorKind;
  roles: string[];
  manager: string | null;
}

export interface SuiteCapability {
  tier: number;
  irreversible: boolean;
  custody: Custody;
  /** the verbs a request may name; absent: the verbs its cases use */
  actions?: string[];
  /** the amount of a case that names none, as the daemon takes the capability's estimate */
  costMicros?: Micros;
}

export type Expectation =
  | { outcome: 'allowed' | 'deferred'; determining?: string[] }
  | { outcome: 'refused'; code: (typeof REFUSAL_CODES)[number]; reason?: string; determining?: string[] };

export interface SuiteCase {
  /** 0-based place in `cases` */
  index: number;
  name: string;
  actor: string;
  capability: string;
  action: string;
  /** absent: the capability's estimate, as the daemon takes it */
  amountMicros?: Micros;
  route: 'action' | 'brokered';
  task: string;
  /** unix seconds; absent: the time of the run */
  nowEpochS?: number;
  expect: Expectation;
  /** `file:line:column` of the case, or of one of its fields */
  at: (field?: string) => string;
}

export interface PolicyTestSuite {
  /** the path as the operator gave it, for messages */
  file: string;
  name: string;
  /** the `policy:` path as written, relative to the suite file */
  policy?: string;
  approvalTier?: number;
  principals: Map<string, SuitePrincipal>;
  capabilities: Map<string, SuiteCapability>;
  cases: SuiteCase[];
}

const id = z.string().min(1).max(256);
const usd = z.union([z.number(), z.string()]);

// As an actor is registered (core/actor.ts): only humans carry roles, only agents a manager.
const Principal = z
  .strictObject({
    kind: z.enum(ACTOR_KINDS),
    roles: z.array(z.enum(ROLES)).optional(),
    manager: id.optional(),
  })
  .superRefine((p, ctx) => {
    if (p.kind !== 'human' && (p.roles ?? []).length > 0) {
      ctx.addIssue({ code: 'custom', path: ['roles'], message: 'only human principals carry roles' });
    }
    if (p.kind !== 'agent' && p.manager !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['manager'], message: 'only agents name a manager' });
    }
  });

const Capability = z.strictObject({
  tier: z.number().int().min(0).max(MAX_TIER),
  irreversible: z.boolean().optional(),
  custody: z.enum(CUSTODIES).optional(),
  actions: z.array(z.string().regex(VERB, 'a verb of lowercase letters')).min(1).optional(),
  cost_usd: usd.optional(),
});

const Outcome = z.enum(['allowed', 'deferred', 'refused']);
const ExpectObject = z
  .strictObject({
    outcome: Outcome,
    code: z.enum(REFUSAL_CODES).optional(),
    reason: z.string().optional(),
    determining: z.array(z.string()).optional(),
  })
  .superRefine((e, ctx) => {
    if (e.outcome === 'refused' && e.code === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['code'],
        message: `required with outcome refused: one of ${REFUSAL_CODES.join(', ')}`,
      });
    }
    if (e.outcome !== 'refused' && (e.code !== undefined || e.reason !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [e.code !== undefined ? 'code' : 'reason'],
        message: `only with outcome refused (this case expects ${e.outcome})`,
      });
    }
  });
// `expect: allowed` is short for `expect: { outcome: allowed }`, so a bare `refused` is told
// its code is missing rather than that it is not a mapping.
const Expect = z.preprocess((v) => (typeof v === 'string' ? { outcome: v } : v), ExpectObject);

const Case = z.strictObject({
  name: z.string().min(1).max(512).optional(),
  actor: id,
  capability: z.string().regex(CAPABILITY_NAME, 'a capability name'),
  action: z.string().regex(VERB, 'a verb of lowercase letters'),
  amount_usd: usd.optional(),
  route: z.enum(['action', 'brokered']).optional(),
  task: id.optional(),
  time: z.iso.datetime({ offset: true, message: 'an RFC 3339 time such as 2026-03-01T09:00:00Z' }).optional(),
  expect: Expect,
});

const Suite = z.strictObject({
  name: z.string().min(1).max(512).optional(),
  policy: z.string().min(1).optional(),
  approval_tier: z
    .number()
    .int()
    .min(0)
    .max(MAX_TIER + 1)
    .optional(),
  principals: z.record(id, Principal).optional(),
  capabilities: z.record(z.string().regex(CAPABILITY_NAME, 'a capability name'), Capability).optional(),
  cases: z.array(Case).min(1).max(MAX_CASES),
});

type Path = readonly (string | number)[];

/** Parses a suite's text; `file` names it in every message. */
export function parseSuite(text: string, file: string): PolicyTestSuite {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  if (doc.errors.length > 0)
    throw report(
      file,
      doc.errors.map((e) => `${at(e.pos[0])}: ${e.message}`),
    );
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    throw report(file, [`${file}: ${(err as Error).message}`]);
  }
  const parsed = Suite.safeParse(data, { error: message });
  if (!parsed.success) {
    throw report(
      file,
      parsed.error.issues
        .flatMap((issue) => {
          const path = issue.path.filter((k): k is string | number => typeof k !== 'symbol');
          if (issue.code !== 'unrecognized_keys') {
            return [{ offset: offsetOf(doc, path), text: `${named(data, path)}: ${issue.message}` }];
          }
          return issue.keys.map((key) => ({
            offset: offsetOf(doc, [...path, key], true),
            text: `${named(data, [...path, key])}: unknown field`,
          }));
        })
        .sort((a, b) => a.offset - b.offset)
        .map((e) => `${at(e.offset)}: ${e.text}`),
    );
  }
  const s = parsed.data;
  const problems: string[] = [];
  const amount = (path: Path, value: string | number): Micros | undefined => {
    try {
      return parseUsdText(typeof value === 'number' ? (numberText(doc, path) ?? String(value)) : value, 'x');
    } catch (err) {
      const reason = (err as SvcError).reason.replace(/^x: /, '');
      problems.push(`${at(offsetOf(doc, path))}: ${named(data, path)}: ${reason}`);
      return undefined;
    }
  };
  const capabilities = new Map<string, SuiteCapability>();
  for (const [name, c] of Object.entries(s.capabilities ?? {})) {
    const cap: SuiteCapability = {
      tier: c.tier,
      irreversible: c.irreversible ?? false,
      custody: c.custody ?? 'grant',
    };
    if (c.actions !== undefined) cap.actions = [...new Set(c.actions)].sort();
    if (c.cost_usd !== undefined) {
      const micros = amount(['capabilities', name, 'cost_usd'], c.cost_usd);
      if (micros !== undefined) cap.costMicros = micros;
    }
    capabilities.set(name, cap);
  }
  const cases = s.cases.map((c, index): SuiteCase => {
    const where = (field?: string) =>
      at(offsetOf(doc, field === undefined ? ['cases', index] : ['cases', index, field]));
    const out: SuiteCase = {
      index,
      name: c.name ?? `${c.actor} ${c.action} ${c.capability}`,
      actor: c.actor,
      capability: c.capability,
      action: c.action,
      route: c.route ?? 'action',
      task: c.task ?? 'test-task',
      expect: expectation(c.expect),
      at: where,
    };
    if (c.amount_usd !== undefined) {
      const micros = amount(['cases', index, 'amount_usd'], c.amount_usd);
      if (micros !== undefined) out.amountMicros = micros;
    }
    if (c.time !== undefined) out.nowEpochS = Math.floor(Date.parse(c.time) / 1000);
    return out;
  });
  if (problems.length > 0) throw report(file, problems);
  const suite: PolicyTestSuite = {
    file,
    name: s.name ?? suiteName(file),
    principals: new Map(
      Object.entries(s.principals ?? {}).map(([name, p]) => [
        name,
        { kind: p.kind, roles: [...(p.roles ?? [])], manager: p.manager ?? null },
      ]),
    ),
    capabilities,
    cases,
  };
  if (s.policy !== undefined) suite.policy = s.policy;
  if (s.approval_tier !== undefined) suite.approvalTier = s.approval_tier;
  return suite;
}

function expectation(e: z.infer<typeof ExpectObject>): Expectation {
  const out: Expectation =
    e.outcome === 'refused'
      ? { outcome: 'refused', code: e.code!, ...(e.reason !== undefined ? { reason: e.reason } : {}) }
      : { outcome: e.outcome };
  if (e.determining !== undefined) out.determining = [...e.determining];
  return out;
}

/** `refunds_test.yaml` -> `refunds`. */
function suiteName(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  return base.replace(SUITE_FILE, '') || base;
}

/** `cases[2] ("over the limit").expect.code`: the case by place and by name, then the field. */
function named(data: unknown, path: Path): string {
  if (path.length === 0) return '(document)';
  return path
    .map((k, i) => {
      if (typeof k !== 'number') return i === 0 ? k : `.${k}`;
      const caseName =
        i === 1 && path[0] === 'cases'
          ? ((data as { cases?: { name?: unknown }[] }).cases?.[k]?.name ?? undefined)
          : undefined;
      return typeof caseName === 'string' ? `[${k}] (${JSON.stringify(caseName)})` : `[${k}]`;
    })
    .join('');
}

/** The literal text of a YAML number, so an amount is read as written, never through a double. */
function numberText(doc: Document.Parsed, path: Path): string | undefined {
  const node = doc.getIn(path, true);
  return isScalar(node) && typeof node.value === 'number' && typeof node.source === 'string'
    ? node.source
    : undefined;
}

/** Where the node at `path` starts; `key` points at a map key rather than its value. */
function offsetOf(doc: Document.Parsed, path: Path, key = false): number {
  let node: unknown = doc.contents;
  for (const [i, step] of path.entries()) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === step);
      next = pair && (key && i === path.length - 1 ? pair.key : (pair.value ?? pair.key));
    } else if (isSeq(node) && typeof step === 'number') {
      next = node.items[step];
    }
    if (next === undefined || next === null) break;
    node = next;
  }
  return (node as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
}

/** zod's messages in the project's words: what was expected, and what was found. */
function message(issue: { code?: string; input?: unknown; expected?: unknown }): string | undefined {
  if (issue.input === undefined) return 'required';
  if (issue.code === 'invalid_type')
    return `expected ${String(issue.expected)}, got ${describe(issue.input)}`;
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

function report(file: string, lines: string[]): SvcError {
  const shown = lines.slice(0, MAX_REPORTED);
  const more = lines.length > shown.length ? `\n  (and ${lines.length - shown.length} more)` : '';
  const summary = lines.length === 1 ? '1 error' : `${lines.length} errors`;
  return new SvcError(
    'invalid_request',
    `${file} is not a valid policy test suite, ${summary}:\n  ${shown.join('\n  ')}${more}`,
    {
      field: 'suite',
      remedy: 'see docs/policy-tests.md for the suite format',
    },
  );
}
