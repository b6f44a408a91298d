import { checkActorInput, type Actor } from '../core/actor.js';
import { checkCapabilityName, type Capability } from '../core/capability.js';
import { SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import type { Store } from '../store/ports.js';
import type { Step } from './apply-step.js';
import { changedFields, prepareCapability } from './capability.js';
import type { DeploymentDocument } from './deployment-document.js';
import { checkActorsOfKind, type ActorLookup } from './references.js';

function listedTwice(what: string, id: string): SvcError {
  return new SvcError('invalid_request', `${what} ${id} is listed twice`, { remedy: 'keep one entry' });
}

/** The fields a document states for an already registered actor that differ from the store. */
function actorDifferences(stored: Actor, declared: Actor, entry: Record<string, unknown>): string[] {
  const sameSet = (a: readonly string[], b: readonly string[]) =>
    [...a].sort().join() === [...b].sort().join();
  const out: string[] = [];
  if (stored.kind !== declared.kind) out.push('kind');
  if ('roles' in entry && !sameSet(stored.roles, declared.roles)) out.push('roles');
  if (stored.managerId !== declared.managerId) out.push('manager');
  if ('cert_subject' in entry && stored.certSubject !== declared.certSubject) out.push('cert_subject');
  if ('display_name' in entry && stored.displayName !== declared.displayName) out.push('display_name');
  if ('chat_user_id' in entry && (stored.chatUserId ?? null) !== (declared.chatUserId ?? null))
    out.push('chat_user_id');
  if ('collab_user_id' in entry && (stored.collabUserId ?? null) !== (declared.collabUserId ?? null))
    out.push('collab_user_id');
  return out;
}

/**
 * Actors are registered, never changed: an actor already in the store must match what the
 * document states about it. Humans are written first, since agents name them as managers.
 */
export async function planActors(
  store: Store,
  doc: DeploymentDocument,
  at: string,
): Promise<{ steps: Step[]; lookup: ActorLookup }> {
  const tenantId = doc.content.tenant;
  const entries = doc.content.actors ?? [];
  const declared = new Map<string, Actor>();
  const subjects = new Set<string>();
  const userIds = new Set<string>();
  for (const [i, a] of entries.entries()) {
    let actor: Actor;
    try {
      actor = checkActorInput(
        {
          tenantId,
          id: a.id,
          kind: a.kind,
          roles: a.roles ?? [],
          managerId: a.manager ?? null,
          certSubject: a.cert_subject ?? null,
          displayName: a.display_name ?? null,
          chatUserId: a.chat_user_id ?? null,
          collabUserId: a.collab_user_id ?? null,
        },
        at,
      );
    } catch (err) {
      throw doc.failIn('actors', i, err);
    }
    if (declared.has(actor.id)) throw doc.fail(['actors', i, 'id'], listedTwice('actor', actor.id));
    if (actor.certSubject !== null && subjects.has(actor.certSubject)) {
      throw doc.fail(['actors', i, 'cert_subject'], listedTwice('certificate subject', a.cert_subject ?? ''));
    }
    if (actor.certSubject !== null) subjects.add(actor.certSubject);
    for (const [kind, userId] of [
      ['chat', actor.chatUserId],
      ['collab', actor.collabUserId],
    ] as const) {
      if (userId === undefined || userId === null) continue;
      if (userIds.has(`${kind}:${userId}`)) {
        throw doc.fail(['actors', i, `${kind}_user_id`], listedTwice(`${kind} user id`, userId));
      }
      userIds.add(`${kind}:${userId}`);
    }
    declared.set(actor.id, actor);
  }
  const lookup: ActorLookup = async (id) => declared.get(id) ?? (await store.actors.get(tenantId, id));
  const humans: Step[] = [];
  const others: Step[] = [];
  for (const [i, a] of entries.entries()) {
    const actor = declared.get(a.id) as Actor;
    try {
      if (actor.managerId !== null) {
        await checkActorsOfKind('manager', [actor.managerId], 'human', lookup, tenantId);
      }
    } catch (err) {
      throw doc.failIn('actors', i, err);
    }
    const stored = await store.actors.get(tenantId, actor.id);
    const steps = actor.kind === 'human' ? humans : others;
    if (stored !== undefined) {
      const differs = actorDifferences(stored, actor, a);
      if (differs.length > 0) {
        throw doc.fail(
          ['actors', i, differs[0] as string],
          new SvcError(
            'conflict',
            `actor ${actor.id} is registered with a different ${differs.join(', ')}; svc apply does not change a registered actor`,
            { remedy: `make the entry match \`svc actor list --tenant ${tenantId}\`` },
          ),
        );
      }
      steps.push({ change: { kind: 'actor', id: actor.id, result: 'unchanged' } });
      continue;
    }
    const holder =
      actor.certSubject === null ? undefined : await store.actors.findByCertSubject(actor.certSubject);
    if (holder !== undefined) {
      throw doc.fail(
        ['actors', i, 'cert_subject'],
        new SvcError(
          'already_exists',
          `actor ${holder.id} of tenant ${holder.tenantId} already has this certificate subject`,
        ),
      );
    }
    for (const [kind, userId] of [
      ['chat', actor.chatUserId],
      ['collab', actor.collabUserId],
    ] as const) {
      const mapped = userId ? await store.channels.approverFor(tenantId, kind, userId) : undefined;
      if (mapped !== undefined) {
        throw doc.fail(
          ['actors', i, `${kind}_user_id`],
          new SvcError('already_exists', `actor ${mapped.id} already has this ${kind} user id`),
        );
      }
    }
    steps.push({
      change: { kind: 'actor', id: actor.id, result: 'created' },
      write: () => store.actors.add(actor),
    });
  }
  return { steps: [...humans, ...others], lookup };
}

/** Capabilities are registered or replaced whole, like `svc capability register`. */
export async function planCapabilities(
  store: Store,
  doc: DeploymentDocument,
  lookup: ActorLookup,
  at: string,
): Promise<{ steps: Step[]; names: Set<string>; registrations: Capability[] }> {
  const tenantId = doc.content.tenant;
  const declared = new Map<string, Capability>();
  const steps: Step[] = [];
  for (const [i, c] of (doc.content.capabilities ?? []).entries()) {
    let cap: Capability;
    try {
      cap = await prepareCapability(
        {
          tenantId,
          name: c.name,
          tier: c.tier,
          irreversible: c.irreversible ?? false,
          custody: c.custody ?? 'grant',
          actions: c.actions,
          ...(c.cost_usd !== undefined
            ? { costUsd: doc.amount(['capabilities', i, 'cost_usd'], c.cost_usd) }
            : {}),
          requestable: c.requestable ?? false,
          approvers: c.approvers ?? [],
          owners: c.owners ?? [],
          ...(c.surface !== undefined ? { surface: c.surface } : {}),
          ...(c.operation !== undefined ? { operation: c.operation } : {}),
        },
        lookup,
        at,
      );
    } catch (err) {
      throw doc.failIn('capabilities', i, err);
    }
    if (declared.has(cap.name))
      throw doc.fail(['capabilities', i, 'name'], listedTwice('capability', cap.name));
    declared.set(cap.name, cap);
    const stored = await store.capabilities.get(tenantId, cap.name);
    const changed = changedFields(stored, cap);
    if (stored !== undefined && changed.length === 0) {
      steps.push({ change: { kind: 'capability', id: cap.name, result: 'unchanged' } });
    } else {
      steps.push({
        change:
          stored === undefined
            ? { kind: 'capability', id: cap.name, result: 'created' }
            : { kind: 'capability', id: cap.name, result: 'updated', changed },
        write: () => store.capabilities.put(cap),
      });
    }
  }
  const names = new Set([
    ...(await store.capabilities.list(tenantId)).map((c) => c.name),
    ...declared.keys(),
  ]);
  return { steps, names, registrations: [...declared.values()] };
}

/** Standing permissions are added; one the document no longer lists is not revoked. */
export async function planPermissions(
  store: Store,
  doc: DeploymentDocument,
  lookup: ActorLookup,
  capabilities: ReadonlySet<string>,
  at: string,
): Promise<Step[]> {
  const tenantId = doc.content.tenant;
  const held = new Set((await store.permissions.list(tenantId)).map((p) => `${p.actorId}/${p.capability}`));
  const seen = new Set<string>();
  const steps: Step[] = [];
  for (const [i, p] of (doc.content.permissions ?? []).entries()) {
    try {
      if ((await lookup(checkSlug('actor', p.actor))) === undefined) {
        throw new SvcError('not_found', `actor: ${p.actor} is not registered in tenant ${tenantId}`, {
          field: 'actor',
        });
      }
      if (!capabilities.has(checkCapabilityName('capability', p.capability))) {
        throw new SvcError(
          'not_found',
          `capability: ${p.capability} is not registered in tenant ${tenantId}`,
          {
            field: 'capability',
          },
        );
      }
    } catch (err) {
      throw doc.failIn('permissions', i, err);
    }
    const id = `${p.actor}/${p.capability}`;
    if (seen.has(id)) throw doc.fail(['permissions', i], listedTwice('permission', id));
    seen.add(id);
    const grant = { tenantId, actorId: p.actor, capability: p.capability, grantedAt: at };
    steps.push(
      held.has(id)
        ? { change: { kind: 'permission', id, result: 'unchanged' } }
        : {
            change: { kind: 'permission', id, result: 'created' },
            write: () => store.permissions.grant(grant),
          },
    );
  }
  return steps;
}
