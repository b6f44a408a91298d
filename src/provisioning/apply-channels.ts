import { SvcError } from '../core/errors.js';
import type { Store } from '../store/ports.js';
import type { Step } from './apply-step.js';
import { prepareChannel, sameChannel } from './channel.js';
import type { DeploymentDocument } from './deployment-document.js';

/**
 * Approval channels of the document's tenant, with the flag names of `svc channel add`.
 * Like actors they are configured, never changed: a channel id already in use must say
 * exactly what the entry says, for this tenant (ids are unique in the deployment).
 */
export async function planChannels(store: Store, doc: DeploymentDocument, at: string): Promise<Step[]> {
  const tenantId = doc.content.tenant;
  const seen = new Set<string>();
  const steps: Step[] = [];
  for (const [i, c] of (doc.content.channels ?? []).entries()) {
    let channel;
    try {
      channel = prepareChannel(
        {
          id: c.id,
          tenantId,
          kind: c.kind,
          signingSecretRef: c.signing_secret_ref,
          openidMetadataUrl: c.openid_metadata,
          appId: c.app_id,
          issuer: c.issuer,
        },
        at,
      );
    } catch (err) {
      throw doc.failIn('channels', i, err);
    }
    if (seen.has(channel.id)) {
      throw doc.fail(
        ['channels', i, 'id'],
        new SvcError('invalid_request', `channel ${channel.id} is listed twice`, {
          remedy: 'keep one entry',
        }),
      );
    }
    seen.add(channel.id);
    const stored = await store.channels.get(channel.id);
    if (stored !== undefined) {
      if (!sameChannel(stored, channel)) {
        throw doc.fail(
          ['channels', i, 'id'],
          new SvcError(
            'conflict',
            stored.tenantId === tenantId
              ? `channel ${channel.id} is configured differently; svc apply does not change a channel`
              : `channel id ${channel.id} is in use by tenant ${stored.tenantId}; ids are unique in the deployment`,
            {
              remedy: `svc channel remove ${channel.id} first, or make the entry match \`svc channel list\``,
            },
          ),
        );
      }
      steps.push({ change: { kind: 'channel', id: channel.id, result: 'unchanged' } });
      continue;
    }
    const created = channel;
    steps.push({
      change: { kind: 'channel', id: channel.id, result: 'created' },
      write: () => store.channels.add(created),
    });
  }
  return steps;
}
