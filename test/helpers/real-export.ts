import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { AnchorSchedule } from '../../src/daemon/anchor-schedule.js';
import { parseSigningKey } from '../../src/evidence/keys.js';
import { exportLog } from '../../src/export/log-export.js';
import { rotateKey } from '../../src/provisioning/signing-key.js';
import { Keyring } from '../../src/store/keyring.js';
import type { Store } from '../../src/store/ports.js';
import { fixture, type Fixture } from './fixture.js';
import { capability, register } from './registry.js';

const quiet = { info: () => undefined, error: () => undefined };

/** Export a tenant's log into a string, as `svc export` writes it. */
export async function exportText(
  store: Store,
  keyring: Keyring,
  tenantId: string,
  now: () => Date,
): Promise<string> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  await exportLog(store, keyring, tenantId, sink, { now });
  return chunks.join('');
}

/** The scheduler the daemon runs, on the fixture's clock: anchor after 5 entries or 5 minutes. */
export function schedule(f: Fixture): AnchorSchedule {
  const keyring = new Keyring(f.dir, f.store);
  return new AnchorSchedule(
    { anchors: f.store.anchors, signer: (t) => keyring.signer(t), clock: () => f.now.value, log: quiet },
    { intervalMs: 5 * 60_000, entries: 5 },
  );
}

export async function decide(
  f: Fixture,
  token: string,
  step: string,
  capabilityName = 'crm.read',
  tenant = 'acme',
  actor = 'bot',
): Promise<number> {
  const r = await f.app.inject({
    method: 'POST',
    url: '/v1/action',
    headers: { authorization: `Bearer ${token}` },
    payload: {
      tenant_id: tenant,
      actor_id: actor,
      capability: capabilityName,
      action: 'read',
      task_id: 't1',
      effect_key_step: step,
      correlation_id: `corr-${step}`,
    },
  });
  return r.statusCode;
}

export interface RealExport {
  f: Fixture;
  /** The export of tenant acme, as `svc export` wrote it. */
  text: string;
  /** Both signing keys of acme (rotated mid-log), raw: what an auditor pins. */
  keys: Uint8Array[];
  /** The active private key of acme: what a forger holding the key signs with. */
  logKey: KeyObject;
  /** A head signed over tenant other's own log, by other's key. */
  otherHead: Record<string, unknown>;
  otherKey: Uint8Array;
}

/**
 * A real log as the daemon writes it: 14 decisions of tenant acme through POST /v1/action
 * (one refused), anchored by the daemon's schedule at 5, 10 and 13 entries, the signing
 * key rotated after entry 8, entries 2..4 redacted (record at 11), exported with a fresh
 * head at 14. Tenant other gets a log of its own, for "a head from another log".
 */
export async function realExport(): Promise<RealExport> {
  const f = await fixture();
  const anchors = schedule(f);
  const bot = await f.token('acme', 'bot');
  await register(f.store, 'acme', {
    caps: [capability('acme', 'crm.read'), capability('acme', 'payments.send', { tier: 3 })],
    grants: [['bot', 'crm.read']],
    tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
  });
  const tick = async () => {
    await anchors.tick();
    f.now.value = new Date(f.now.value.getTime() + 1000);
  };
  let step = 0;
  const next = async (cap = 'crm.read') => {
    await decide(f, bot, `s${++step}`, cap);
    await tick();
  };
  for (let i = 0; i < 4; i++) await next();
  await next('payments.send'); // refused: no permission; anchored at 5
  for (let i = 0; i < 3; i++) await next();
  await rotateKey(f.dir, f.store, 'acme', f.now.value);
  for (let i = 0; i < 2; i++) await next(); // anchored at 10 by the new key
  await f.store.redactions.redact({
    tenantId: 'acme',
    from: 2,
    to: 4,
    reason: 'erasure request 17',
    authorisedBy: 'alice',
    policyId: 'gdpr-art-17',
    at: f.now.value.toISOString(),
  });
  for (let i = 0; i < 2; i++) await next();
  f.now.value = new Date(f.now.value.getTime() + 5 * 60_000);
  await tick(); // the interval: anchored at 13
  await next();

  const keyring = new Keyring(f.dir, f.store);
  const text = await exportText(f.store, keyring, 'acme', () => f.now.value);
  const keys = (await f.store.keys.list('acme')).map(
    (k) => new Uint8Array(Buffer.from(k.publicKey, 'base64')),
  );
  // A forger holding the key signs with it: the test reads the key file the keyring signs from.
  const { record } = await keyring.active('acme');
  const logKey = parseSigningKey(readFileSync(f.dir.keyFile('acme', record.keyId), 'utf8'));

  await register(f.store, 'other', {
    caps: [capability('other', 'crm.read')],
    tasks: [{ id: 't1', sponsor: 'olga', budget: 1_000_000n }],
  });
  await decide(f, await f.token('other', 'olga'), 'o1', 'crm.read', 'other', 'olga');
  const otherText = await exportText(f.store, keyring, 'other', () => f.now.value);
  const otherHeader = JSON.parse(otherText.split('\n')[0]!) as {
    head: Record<string, unknown>;
    public_key: string;
  };
  return {
    f,
    text,
    keys,
    logKey,
    otherHead: otherHeader.head,
    otherKey: new Uint8Array(Buffer.from(otherHeader.public_key, 'base64')),
  };
}
