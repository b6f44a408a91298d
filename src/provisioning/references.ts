import type { Actor, ActorKind } from '../core/actor.js';
import { SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import type { Store } from '../store/ports.js';

/**
 * Where a registration looks up the actors it names. The CLI asks the store; `svc apply`
 * asks the document first, so one document can register a human and name it as a sponsor.
 */
export type ActorLookup = (id: string) => Promise<Pick<Actor, 'kind'> | undefined>;

export function storeActors(store: Store, tenantId: string): ActorLookup {
  return (id) => store.actors.get(tenantId, id);
}

/** Every id in `ids` names a registered actor of `kind`; the error names the field. */
export async function checkActorsOfKind(
  field: string,
  ids: readonly string[],
  kind: ActorKind,
  lookup: ActorLookup,
  tenantId: string,
): Promise<string[]> {
  const out = [...new Set(ids)].sort();
  for (const id of out) {
    checkSlug(field, id);
    const actor = await lookup(id);
    if (actor?.kind !== kind) {
      const what =
        actor === undefined ? 'is not registered' : `is ${article(actor.kind)}, not ${article(kind)}`;
      throw new SvcError('invalid_request', `${field}: ${id} ${what} in tenant ${tenantId}`, {
        field,
        remedy:
          actor === undefined
            ? `register it first: svc actor add --tenant ${tenantId} --id ${id} --kind ${kind}${kind === 'agent' ? ' --manager <human>' : ''}`
            : `name a registered ${kind} (see \`svc actor list --tenant ${tenantId}\`)`,
      });
    }
  }
  return out;
}

function article(kind: ActorKind): string {
  return kind === 'agent' ? 'an agent' : `a ${kind}`;
}

/** Short operator-written text (titles, labels): bounded and well-formed, or null. */
export function checkText(field: string, value: string | undefined | null, max = 200): string | null {
  if (value === undefined || value === null) return null;
  if (value.length > max || !value.isWellFormed()) {
    throw new SvcError(
      'invalid_request',
      `${field}: expected at most ${max} characters of well-formed text`,
      {
        field,
      },
    );
  }
  return value;
}
