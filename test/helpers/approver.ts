import type { Store } from '../../src/store/ports.js';

/** A registered human with the approver role in tenant acme (the fixtures' tenant). */
export function addApprover(store: Pick<Store, 'actors'>, id: string): Promise<unknown> {
  return store.actors.add({
    tenantId: 'acme',
    id,
    kind: 'human',
    roles: ['approver'],
    managerId: null,
    certSubject: null,
    displayName: null,
    createdAt: 'x',
  });
}
