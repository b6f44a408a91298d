import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTreeHead, type TreeHead } from '../../src/evidence/tree-head.js';
import { logIdFor } from '../../src/evidence/log-id.js';
import { ed25519Signer, sha256 } from '../../src/evidence/node-crypto.js';
import { parseSigningKey } from '../../src/evidence/keys.js';
import {
  runJson,
  runSvc,
  startDaemonProcess,
  startWitnessProcess,
  type DaemonProcess,
} from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

interface WitnessKey {
  witness_id: string;
  public_key: string;
}

/** Two witnesses (the built binary) on loopback, a daemon anchoring to both, and the verifier. */
describe('witnesses (built binary, loopback)', () => {
  const tmp = tmpDir('svc-witness-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  const t = ['--tenant', 'acme'];
  const w = [1, 2].map((n) => ({
    keyFile: join(tmp.path, `w${n}.pem`),
    state: join(tmp.path, `w${n}-state.json`),
  }));
  let logKey: string;
  let logId: string;
  let keys: WitnessKey[];
  let witnesses: DaemonProcess[] = [];
  let daemon: DaemonProcess | undefined;
  let bot: string;
  let step = 0;

  const serve = (i: number) =>
    startWitnessProcess([
      '--allow-insecure-http',
      '--key-file',
      w[i]!.keyFile,
      '--state',
      w[i]!.state,
      '--log-key',
      `acme=${logKey}`,
    ]);
  const startDaemon = () =>
    startDaemonProcess(
      [
        '--allow-insecure-http',
        '--anchor-entries',
        '3',
        '--anchor-interval',
        '1h',
        ...witnesses.flatMap((x, i) => [
          '--witness',
          `${x.url}=${keys[i]!.witness_id}=${keys[i]!.public_key}`,
        ]),
      ],
      env,
    );
  const decide = async () => {
    const r = await call(`${daemon!.url}/v1/action`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bot}` },
      body: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'crm.read',
        action: 'read',
        task_id: 't1',
        effect_key_step: `s${++step}`,
      },
    });
    expect(r.status).toBe(200);
  };
  const lastHead = async (url: string) => {
    const r = await call(`${url}/v1/head?log_id=${encodeURIComponent(logId)}`);
    return r.status === 200 ? (r.body.head as TreeHead) : undefined;
  };
  const cosignedAt = (url: string, size: number) =>
    until(`a cosignature of size ${size}`, async () =>
      (await lastHead(url))?.tree_size === size ? true : undefined,
    );

  beforeAll(async () => {
    await runJson(['init', ...t, '--admin', 'alice'], env);
    await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
    await runJson(
      ['capability', 'register', ...t, '--name', 'crm.read', '--actions', 'read', '--tier', '1'],
      env,
    );
    await runJson(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'crm.read'], env);
    const policy = join(tmp.path, 'policy.cedar');
    writeFileSync(policy, 'permit (principal, action, resource);\n');
    await runJson(['policy', 'set', ...t, '--file', policy], env);
    await runJson(['task', 'create', ...t, '--id', 't1', '--sponsor', 'alice', '--budget-usd', '100'], env);
    bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    logKey = (await runJson<{ public_key: string }>(['key', 'show', ...t], env)).public_key;
    keys = [
      await runJson<WitnessKey>(['witness', 'key', '--key-file', w[0]!.keyFile]),
      await runJson<WitnessKey>(['witness', 'key', '--key-file', w[1]!.keyFile]),
    ];
    witnesses = [await serve(0), await serve(1)];
    daemon = await startDaemon();
    logId = logIdFor('acme', sha256);
  }, 60_000);

  afterAll(async () => {
    await daemon?.stop();
    for (const x of witnesses) await x.stop();
    tmp.cleanup();
  });

  it('both witnesses cosign each anchor, the second through a consistency proof', async () => {
    for (let i = 0; i < 3; i++) await decide();
    await cosignedAt(witnesses[0]!.url, 3);
    await cosignedAt(witnesses[1]!.url, 3);
    for (let i = 0; i < 3; i++) await decide();
    await cosignedAt(witnesses[0]!.url, 6);
    await cosignedAt(witnesses[1]!.url, 6);
    const ready = await call(`${daemon!.url}/readyz`);
    expect(ready.body).toEqual({
      status: 'ready',
      details: {
        witnesses: { configured: 2, failing: 0, refused: 0 },
        timestamps: { authority: 'noop', failing: false },
        notifications: { pending: 0, dead: 0, disabled_destinations: 0 },
      },
    });
  });

  it('a witness that is down never blocks decisions; the anchor is recorded without it and /readyz says so', async () => {
    expect(await witnesses[1]!.stop()).toBe(0);
    for (let i = 0; i < 3; i++) await decide(); // all allowed, none waits for the witness
    await cosignedAt(witnesses[0]!.url, 9);
    const details = await until('/readyz to count the failure', async () => {
      const r = await call(`${daemon!.url}/readyz`);
      const d = r.body.details as { witnesses: { failing: number } };
      return d.witnesses.failing === 1 ? r.body : undefined;
    });
    expect(details).toMatchObject({ status: 'ready' });
    expect(JSON.stringify(details)).not.toMatch(/127\.0\.0\.1|acme|http/);
    expect(daemon!.stdout()).toMatch(/anchor witness: no cosignature/);
  });

  it('a restarted witness keeps its state; it refuses rollback, fork and bad proofs, storing nothing', async () => {
    witnesses[1] = await serve(1);
    const kept = await lastHead(witnesses[1]!.url);
    expect(kept?.tree_size).toBe(6);
    const url = witnesses[1]!.url;
    const cosign = (head: TreeHead, proof: string[]) =>
      call(`${url}/v1/cosign`, { method: 'POST', body: { head, proof } });

    // The log's own key, to sign heads a witness must still refuse.
    const keyId = (await runJson<{ key_id: string }>(['key', 'show', ...t], env)).key_id;
    const sign = ed25519Signer(
      parseSigningKey(readFileSync(join(home, 'keys', 'acme', `${keyId}.pem`), 'utf8')),
    );
    const resign = (h: TreeHead): TreeHead => signTreeHead({ ...h, signature: undefined } as never, sign);
    const older = resign({ ...kept!, index: 3, tree_size: 3 });
    const rollback = await cosign(older, []);
    expect(rollback.status).toBe(409);
    expect(rollback.body.code).toBe('rollback');
    const fork = await cosign(resign({ ...kept!, root_hash: 'ab'.repeat(32) }), []);
    expect(fork.status).toBe(409);
    expect(fork.body.code).toBe('fork');
    const badProof = await cosign(resign({ ...kept!, index: 9, tree_size: 9, root_hash: 'cd'.repeat(32) }), [
      'ef'.repeat(32),
    ]);
    expect(badProof.status).toBe(400);
    expect(badProof.body.code).toBe('bad_proof');
    const forged = await cosign({ ...kept!, index: 9, tree_size: 9, signature: kept!.signature }, []);
    expect(forged.body.code).toBe('bad_signature');
    expect(JSON.parse(readFileSync(w[1]!.state, 'utf8')).logs[logId].tree_size).toBe(6);
    expect((await lastHead(url))?.tree_size).toBe(6);
  });

  it('the restarted witness catches up; the export verifies with both witnesses pinned', async () => {
    await daemon!.stop();
    daemon = await startDaemon();
    for (let i = 0; i < 3; i++) await decide();
    await cosignedAt(witnesses[0]!.url, 12);
    await cosignedAt(witnesses[1]!.url, 12); // from 6 to 12 in one consistency proof
    // A receipt with its proof, checked offline with the same pins.
    const receipts = await call(`${daemon!.url}/v1/receipts?limit=200`, {
      headers: { authorization: `Bearer ${bot}` },
    });
    const id = (receipts.body.items as { receipt_id: string }[])[10]!.receipt_id;
    const receiptFile = join(tmp.path, 'receipt.json');
    const shown = await runSvc(['receipts', 'show', id, '--proof', '--json'], {
      SVC_ENDPOINT: daemon!.url,
      SVC_TOKEN: bot,
    });
    expect(shown.code, shown.stderr).toBe(0);
    writeFileSync(receiptFile, shown.stdout);
    expect(await daemon!.stop()).toBe(0);
    daemon = undefined;

    const pins = keys.flatMap((k) => ['--witness-key', `${k.witness_id}=${k.public_key}`]);
    const receipt = await runSvc([
      'verify',
      'receipt',
      receiptFile,
      '--public-key',
      logKey,
      ...pins,
      '--require-witnesses',
      '2',
      '--json',
    ]);
    expect(receipt.code, receipt.stdout).toBe(0);
    expect(JSON.parse(receipt.stdout)).toMatchObject({
      result: 'pass',
      sequence: 11,
      tree_size: 12,
      witnesses: { independent: 2 },
    });

    const file = join(tmp.path, 'acme.jsonl');
    await runJson(['export', ...t, '--out', file], env);
    const pass = await runSvc([
      'verify',
      file,
      '--public-key',
      logKey,
      ...pins,
      '--require-witnesses',
      '2',
      '--json',
    ]);
    expect(pass.code, pass.stdout).toBe(0);
    const report = JSON.parse(pass.stdout);
    expect(report.witnesses).toMatchObject({
      verified: 7,
      unpinned: 0,
      last_anchor_independent: 2,
      required: 2,
    });
    expect(report.timestamps).toMatchObject({ noop: 4 });

    const three = await runSvc([
      'verify',
      file,
      '--public-key',
      logKey,
      ...pins,
      '--require-witnesses',
      '3',
      '--json',
    ]);
    expect(three.code).toBe(1);
    expect(JSON.parse(three.stdout).findings.map((f: { code: string }) => f.code)).toEqual([
      'witnesses_required',
    ]);

    // Witness 2's id pinned to witness 1's key: its cosignatures do not verify, and do not count.
    const mismatched = await runSvc([
      'verify',
      file,
      '--public-key',
      logKey,
      '--witness-key',
      `${keys[0]!.witness_id}=${keys[0]!.public_key}`,
      '--witness-key',
      `${keys[1]!.witness_id}=${keys[0]!.public_key}`,
      '--require-witnesses',
      '2',
      '--json',
    ]);
    expect(mismatched.code).toBe(1);
    const codes = JSON.parse(mismatched.stdout).findings.map((f: { code: string }) => f.code);
    expect(new Set(codes)).toEqual(new Set(['witness_signature_invalid', 'witnesses_required']));

    // Unpinned: reported, never counted, never a failure on its own.
    const unpinned = await runSvc(['verify', file, '--public-key', logKey, '--json']);
    expect(unpinned.code).toBe(0);
    expect(JSON.parse(unpinned.stdout).witnesses).toMatchObject({ unpinned: 7, verified: 0 });
  });

  it('a witness refuses to start with the log key as its own', async () => {
    const keyId = (await runJson<{ key_id: string }>(['key', 'show', ...t], env)).key_id;
    const r = await runSvc([
      'witness',
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--allow-insecure-http',
      '--key-file',
      join(home, 'keys', 'acme', `${keyId}.pem`),
      '--state',
      join(tmp.path, 'x.json'),
      '--log-key',
      `acme=${logKey}`,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/witness key is the pinned key of log/);
  });
});
