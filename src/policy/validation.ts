/**
 * Validation of a tenant's policy text against the project's schema, before it is
 * accepted. Strict mode is the engine's only mode: it also refuses a policy that reads an
 * optional attribute without testing for it, or compares values of different types, which
 * are exactly the policies that would otherwise error (and be skipped) at decision time.
 */
import { validate } from './cedar-engine.js';
import type { DetailedError, ValidationError } from './cedar-engine.js';
import { positionOfIndex, toDiagnostics } from './diagnostic.js';
import type { PolicyDiagnostic, Position } from './diagnostic.js';
import { readPolicySource } from './policy-source.js';
import type { PolicySource } from './policy-source.js';
import { cedarSchema } from './schema.js';

export type PolicyValidation =
  | { ok: true; warnings: PolicyDiagnostic[] }
  | { ok: false; errors: PolicyDiagnostic[]; warnings: PolicyDiagnostic[] };

const START: Position = { line: 1, column: 1 };

/** Checks `text` (Cedar policy syntax) against the schema of a tenant whose verbs are `actions`. */
export function validatePolicy(text: string, actions: readonly string[]): PolicyValidation {
  const answer = validate({
    schema: cedarSchema(actions),
    policies: { staticPolicies: text },
    validationSettings: { mode: 'strict' },
  });
  const source = readPolicySource(text);
  if (answer.type === 'failure') {
    return {
      ok: false,
      errors: answer.errors.flatMap((e) => toDiagnostics(text, e, undefined, unplacedPosition(text, source))),
      warnings: answer.warnings.flatMap((e) => toDiagnostics(text, e, undefined, START)),
    };
  }
  const place = (v: ValidationError) =>
    toDiagnostics(text, v.error, v.policyId, policyStart(text, source, v.policyId));
  const warnings = [
    ...answer.validationWarnings.flatMap(place),
    ...answer.otherWarnings.flatMap((e: DetailedError) => toDiagnostics(text, e, undefined, START)),
  ];
  if (answer.validationErrors.length > 0) {
    return { ok: false, errors: answer.validationErrors.flatMap(place), warnings };
  }
  return { ok: true, warnings };
}

function policyStart(text: string, source: PolicySource | undefined, cedarId: string): Position {
  const entry = source?.policies.find((p) => p.cedarId === cedarId);
  return entry === undefined ? START : positionOfIndex(text, entry.index);
}

// A failure without a span is, in practice, a template in a static set: point at it.
function unplacedPosition(text: string, source: PolicySource | undefined): Position {
  const template = source?.templateIndexes[0];
  return template === undefined ? START : positionOfIndex(text, template);
}
