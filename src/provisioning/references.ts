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

/** A step that names a tenant needs it to exist; the error points at the listing. */
export async function requireTenant(store: Store, tenantId: string): Promise<void> {
  checkSlug('tenant', tenantId);
  if (!(await store.tenants.get(tenantId))) {
    throw new SvcError('not_found', `tenant ${tenantId} does not exist`, { remedy: 'see `svc tenant list`' });
  }
}

/** A step that names an actor needs it registered in that tenant. */
export async function requireActor(store: Store, tenantId: string, actorId: string): Promise<Actor> {
  const actor = await store.actors.get(tenantId, actorId);
  if (!actor) {
    throw new SvcError('not_found', `actor ${actorId} does not exist in tenant ${tenantId}`, {
      remedy: `see \`svc actor list --tenant ${tenantId}\``,
    });
  }
  return actor;
}
