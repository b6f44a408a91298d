/**
 * A tenant's policy set, validated and handed to the engine once.
 *
 * The engine keeps preparsed policy sets and schemas in a cache inside the wasm instance,
 * keyed by a string. The key here is a digest of the schema name and the policy text, so a
 * key always means the same content: a decision in flight on an older compiled set can
 * never be evaluated against a newer text preparsed under the same key, and re-compiling
 * an unchanged text costs no second parse. The engine offers no eviction, so every distinct
 * text compiled in this process stays cached; policy texts change at operator pace, which
 * keeps that small.
 */
import { preparsePolicySet, preparseSchema } from './cedar-engine.js';
import { SvcError } from '../core/errors.js';
import { formatDiagnostic } from './diagnostic.js';
import type { PolicyDiagnostic } from './diagnostic.js';
import { readPolicySource } from './policy-source.js';
import type { PolicyEntry } from './policy-source.js';
import { cedarSchema, digest, normalizeActions, schemaName } from './schema.js';
import { validatePolicy } from './validation.js';

export interface CompiledPolicySet {
  /** The engine's cache key for this text under this schema. */
  readonly id: string;
  readonly schemaName: string;
  /** The verbs the schema was built from; a request for any other verb is refused. */
  readonly actions: readonly string[];
  readonly text: string;
  /** By the engine's policy id. */
  readonly policies: ReadonlyMap<string, PolicyEntry>;
  readonly warnings: readonly PolicyDiagnostic[];
}

/** A policy text refused at installation; `diagnostics` carries every error with its position. */
export class PolicyRejectedError extends SvcError {
  readonly diagnostics: readonly PolicyDiagnostic[];

  constructor(diagnostics: PolicyDiagnostic[]) {
    const first = diagnostics[0];
    const summary = first === undefined ? 'unknown error' : formatDiagnostic(first);
    const more = diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more)` : '';
    super('invalid_request', `policy: does not validate against the schema: ${summary}${more}`, {
      field: 'policy',
      remedy: 'fix the reported lines and install the policy again',
    });
    this.name = 'PolicyRejectedError';
    this.diagnostics = diagnostics;
  }
}

// Mirrors the engine's cache, which lives in this module's wasm instance (one per thread).
const preparsedSchemas = new Set<string>();
const preparsedPolicySets = new Set<string>();

/** Validates `text` against the schema for `actions` and preparses it; throws `PolicyRejectedError`. */
export function compilePolicySet(text: string, actions: readonly string[]): CompiledPolicySet {
  const verbs = normalizeActions(actions);
  const validation = validatePolicy(text, verbs);
  if (!validation.ok) throw new PolicyRejectedError(validation.errors);
  const source = readPolicySource(text);
  if (source === undefined)
    throw new SvcError('internal', 'policy text validated but could not be read back');
  const name = schemaName(verbs);
  const compiled: CompiledPolicySet = Object.freeze({
    id: `svc-policy:${digest(`${name}\n${text}`)}`,
    schemaName: name,
    actions: Object.freeze(verbs),
    text,
    policies: new Map(source.policies.map((p) => [p.cedarId, p])),
    warnings: Object.freeze(validation.warnings),
  });
  ensurePreparsed(compiled);
  return compiled;
}

/** Makes sure this thread's engine holds the compiled set and its schema. */
export function ensurePreparsed(compiled: CompiledPolicySet): void {
  if (!preparsedSchemas.has(compiled.schemaName)) {
    const answer = preparseSchema(compiled.schemaName, cedarSchema(compiled.actions));
    if (answer.type !== 'success') throw engineFailure('schema', answer.errors);
    preparsedSchemas.add(compiled.schemaName);
  }
  if (!preparsedPolicySets.has(compiled.id)) {
    const answer = preparsePolicySet(compiled.id, { staticPolicies: compiled.text });
    if (answer.type !== 'success') throw engineFailure('policy set', answer.errors);
    preparsedPolicySets.add(compiled.id);
  }
}

function engineFailure(what: string, errors: { message: string }[]): SvcError {
  return new SvcError(
    'internal',
    `policy engine refused a validated ${what}: ${errors.map((e) => e.message).join('; ')}`,
  );
}
