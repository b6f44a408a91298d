import { SvcError } from '../core/errors.js';
import { checkSlug } from '../core/ids.js';
import { ROTATION_OVERLAP_MS, rotatedValue } from '../core/notify/secret-rotation.js';
import { openSecretBox } from '../integration/secret-key-source.js';
import { newWebhookSecret } from '../notify/webhook-secret.js';
import type { DataDir } from '../store/data-dir.js';
import type { Store } from '../store/ports.js';
import { secretFor } from './notify.js';
import { requireTenant } from './references.js';

export interface RotatedSecret {
  tenant_id: string;
  destination_id: string;
  kind: string;
  /** a webhook's new signing secret, shown once; null for the other kinds (the file given) */
  secret: string | null;
  /** until when the secret it replaced still signs too (webhook); null when it stopped at once */
  previous_valid_until: string | null;
}

/**
 * A destination's new secret, sealed over the old one as `notify.<id>`. A webhook's is made
 * here and the one it replaces keeps signing beside it for 24 hours, so receivers can move
 * to the new one at their pace; a chat, collab or email secret is the administrator's and
 * replaces the old one at once (the platform issued it: there is nothing to overlap with).
 */
export async function rotateDestinationSecret(
  dir: DataDir,
  store: Store,
  o: { tenantId: string; id: string; secret?: string | undefined; now: Date },
): Promise<RotatedSecret> {
  await requireTenant(store, o.tenantId);
  const id = checkSlug('id', o.id);
  const d = await store.notify.destination(o.tenantId, id);
  if (d === undefined) {
    throw new SvcError('not_found', `no notification destination ${id} in tenant ${o.tenantId}`, {
      remedy: `see svc notify list --tenant ${o.tenantId}`,
    });
  }
  const box = await openSecretBox(dir, store, { create: true });
  let value: string;
  let shown: string | null = null;
  let previousUntil: Date | null = null;
  if (d.kind === 'webhook') {
    secretFor(d.kind, { ...d.settings }, o.secret); // refuses a given secret, as add does
    shown = newWebhookSecret();
    const sealed = await store.secrets.get(o.tenantId, d.secretName);
    // A secret that cannot be opened (another data dir's key) is replaced without overlap.
    let current: string | undefined;
    try {
      current = sealed && box.open(o.tenantId, d.secretName, sealed);
    } catch {
      current = undefined;
    }
    ({ value, previousUntil } = rotatedValue(current, shown, o.now, ROTATION_OVERLAP_MS));
  } else {
    const given = secretFor(d.kind, { ...d.settings }, o.secret);
    if (given === undefined) {
      throw new SvcError('invalid_request', `id: ${id} sends no password; it has no secret to rotate`, {
        field: 'id',
      });
    }
    value = given.value;
  }
  await store.secrets.put(
    o.tenantId,
    d.secretName,
    box.seal(o.tenantId, d.secretName, value),
    o.now.toISOString(),
  );
  return {
    tenant_id: o.tenantId,
    destination_id: id,
    kind: d.kind,
    secret: shown,
    previous_valid_until: previousUntil?.toISOString() ?? null,
  };
}
