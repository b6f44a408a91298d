import { checkActorInput, type Actor, type ActorInput } from '../core/actor.js';
import { SvcError } from '../core/errors.js';
import type { Store } from '../store/ports.js';
import { requireTenant } from './references.js';

/** Register an actor; an agent's manager must be a registered human of the same tenant. */
export async function addActor(store: Store, input: ActorInput, now: Date): Promise<Actor> {
  const actor = checkActorInput(input, now.toISOString());
  await requireTenant(store, actor.tenantId);
  if (actor.managerId !== null) {
    const manager = await store.actors.get(actor.tenantId, actor.managerId);
    if (!manager || manager.kind !== 'human') {
      throw new SvcError(
        'invalid_request',
        `manager: ${actor.managerId} is not a registered human in tenant ${actor.tenantId}`,
        {
          field: 'manager',
          remedy: `register the manager first: svc actor add --tenant ${actor.tenantId} --id ${actor.managerId} --kind human --role manager`,
        },
      );
    }
  }
  await store.actors.add(actor);
  return actor;
}
