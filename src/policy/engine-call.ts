/**
 * The call handed to the engine for one request, in two forms.
 *
 * The full form is what a request always got: the tenant's schema, request validation on,
 * every attribute of the principal, the resource and the context. The lean form leaves out
 * what cannot change the answer, because half of a cache miss went into the engine building
 * values nobody reads (measured: `npm run bench -- policy`):
 * - no schema and no request validation: the set was validated against the schema at
 *   installation (strict mode, `compilePolicySet`), and the lean form is only used for a
 *   request of exactly the schema's attributes and types (`wellTyped`), so the schema would
 *   only confirm what is already known. The schema adds nothing else to an evaluation here:
 *   its actions have no groups and its entity types no parents, so `in` and `==` compare
 *   ids with or without it, and an action has no attributes to read;
 * - only the attributes the set reads (policy-reads.ts): no Cedar expression can observe an
 *   attribute it does not name (an entity is not a record, so there is no way to list its
 *   attributes), and `has` counts as naming. A set the analysis cannot read is given all of
 *   them; the context used as a whole value is given whole.
 * The caller uses the lean answer only when it is clean (a decision with no evaluation
 * error); anything else is evaluated again in the full form, so refusals and their
 * diagnostics are the full form's, word for word.
 */
import type { CedarValueJson, StatefulAuthorizationCall } from './cedar-engine.js';
import type { EngineInput } from './authorization-cache.js';
import { analysePolicyReads, type PolicyReads } from './policy-reads.js';
import type { CompiledPolicySet } from './policy-set.js';
import { ACTION_TYPE, ACTOR_TYPE, CAPABILITY_TYPE } from './schema.js';

type Attributes = Readonly<Record<string, CedarValueJson>>;

/** Per compiled set: what it reads, or `null` when that cannot be known. */
const readsBySet = new WeakMap<CompiledPolicySet, PolicyReads | null>();

function readsOf(compiled: CompiledPolicySet): PolicyReads | null {
  let reads = readsBySet.get(compiled);
  if (reads === undefined) {
    const analysis = analysePolicyReads(compiled.text);
    reads = analysis.cacheable ? analysis.reads : null;
    readsBySet.set(compiled, reads);
  }
  return reads;
}

/** The call every request got before the lean form: schema, validation, every attribute. */
export function fullCall(compiled: CompiledPolicySet, input: EngineInput): StatefulAuthorizationCall {
  return {
    ...callOf(compiled, input, input.principal, input.resource, input.context),
    preparsedSchemaName: compiled.schemaName,
    validateRequest: true,
  };
}

/** The lean call for a well-typed `input` (see the top of this file for why it answers alike). */
export function leanCall(compiled: CompiledPolicySet, input: EngineInput): StatefulAuthorizationCall {
  const reads = readsOf(compiled);
  if (reads === null) return callOf(compiled, input, input.principal, input.resource, input.context);
  return callOf(
    compiled,
    input,
    pick(input.principal, reads.principal),
    pick(input.resource, reads.resource),
    reads.context === 'all' ? input.context : pick(input.context, reads.context),
  );
}

function callOf(
  compiled: CompiledPolicySet,
  input: EngineInput,
  principal: Attributes,
  resource: Attributes,
  context: Attributes,
): StatefulAuthorizationCall {
  return {
    principal: { type: ACTOR_TYPE, id: input.principalId },
    action: { type: ACTION_TYPE, id: input.action },
    resource: { type: CAPABILITY_TYPE, id: input.resourceId },
    context,
    entities: [
      { uid: { type: ACTOR_TYPE, id: input.principalId }, attrs: principal, parents: [] },
      { uid: { type: CAPABILITY_TYPE, id: input.resourceId }, attrs: resource, parents: [] },
    ],
    preparsedPolicySetId: compiled.id,
  };
}

function pick(record: Attributes, names: readonly string[]): Record<string, CedarValueJson> {
  const out: Record<string, CedarValueJson> = {};
  for (const name of names) {
    const value = record[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
