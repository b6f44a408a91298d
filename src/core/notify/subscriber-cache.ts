import type { Subscriber } from './outbox.js';

/**
 * A tenant's destinations as the decision pipeline last read them, under the tenant's
 * registry version (bumped with every destination change, as with every capability or
 * policy change). A decision reads the version in its own transaction anyway, so a hit
 * costs no query: `decision.refused` is on the hot path, and a tenant without
 * subscribers must pay nothing for it.
 */
export class SubscriberCache {
  private readonly held = new Map<string, { version: number; subscribers: Subscriber[] }>();

  get(tenantId: string, version: number): Subscriber[] | undefined {
    const h = this.held.get(tenantId);
    return h && h.version === version ? h.subscribers : undefined;
  }

  set(tenantId: string, version: number, subscribers: Subscriber[]): void {
    this.held.set(tenantId, { version, subscribers });
  }
}
