import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { AnchorAttestor } from '../../src/daemon/attest/anchor-attestor.js';
import { decodeBase64 } from '../../src/evidence/encoding.js';
import type { TrustOptions } from '../../src/evidence/verify/trust.js';
import { Keyring } from '../../src/store/keyring.js';
import { buildWitnessApp, listenWitness } from '../../src/witness/server.js';
import { LogWitness } from '../../src/witness/witness.js';
import { decide, realExport } from './real-export.js';
import { as } from './seed.js';
import { tmpDir } from './tmp.js';
import { startTestTsa } from './tsa.js';

const quiet = { info: () => undefined, warn: () => undefined };

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A genuine `GET /v1/receipts/{id}?proof=true` answer and the trust it verifies under. */
export interface ReceiptCase {
  name: string;
  doc: { [key: string]: Json };
  trust: TrustOptions;
}

export interface RealReceipts {
  cases: ReceiptCase[];
  /** Raw log keys of tenant acme (rotated mid-log): what an auditor pins. */
  keys: Uint8Array[];
  close: () => Promise<void>;
}

/**
 * Receipts with proofs as the daemon serves them, over the log of `realExport` (entries
 * 2..4 redacted, record at 11, anchors at 5, 10, 13): a plain entry, a redacted one and the
 * redaction record under the bare anchor; then the same anchor timestamped by a real RFC 3161
 * authority (openssl) and cosigned by a real witness over loopback HTTP, read with the TSA
 * root and the witness pinned, and without them; then a later anchor with the noop
 * timestamp and a cosignature the witness gave only with a consistency proof.
 */
export async function realReceipts(): Promise<RealReceipts> {
  const real = await realExport();
  const { f, keys } = real;
  const tsa = await startTestTsa('grant');
  const tmp = tmpDir('svc-witness-');
  const witnessKey = generateKeyPairSync('ed25519').privateKey;
  const active = decodeBase64((await f.store.keys.active('acme'))!.publicKey)!;
  const logId = (JSON.parse(real.text.split('\n')[0]!) as { log_id: string }).log_id;
  const witness = new LogWitness({
    privateKey: witnessKey,
    stateFile: join(tmp.path, 'witness-state.json'),
    logKeys: new Map([[logId, active]]),
  });
  const witnessApp = buildWitnessApp(witness);
  const witnessUrl = await listenWitness(witnessApp, '127.0.0.1:0', false);

  const read = async (sequence: number) => {
    const all = (await as(f, f.adminToken, '/v1/receipts?limit=200')).body.items as {
      receipt_id: string;
      sequence: number;
    }[];
    const id = all.find((r) => r.sequence === sequence)!.receipt_id;
    const r = await as(f, f.adminToken, `/v1/receipts/${id}?proof=true`);
    if (r.status !== 200 || r.body.proof === null) throw new Error(`no proof for entry ${sequence}`);
    return r.body as { [key: string]: Json };
  };
  const keysOnly: TrustOptions = { publicKeys: keys };
  const pinned: TrustOptions = {
    publicKeys: keys,
    tsaRoots: [tsa.rootDer],
    witnessKeys: [{ id: witness.id, key: witness.publicKey }],
    requireWitnesses: 1,
  };
  const cases: ReceiptCase[] = [];
  const add = async (name: string, sequence: number, trust: TrustOptions) =>
    cases.push({ name, doc: await read(sequence), trust });

  await add('plain entry, bare anchor', 7, keysOnly);
  await add('redacted entry, bare anchor', 3, keysOnly);
  await add('redaction record, bare anchor', 11, keysOnly);

  const attestor = (tsaUrl?: string) =>
    new AnchorAttestor(f.store, {
      ...(tsaUrl ? { tsaUrl } : {}),
      witnesses: [{ url: witnessUrl, id: witness.id, key: witness.publicKey }],
      log: quiet,
    });
  await attestor(tsa.url).attest((await f.store.anchors.latest('acme'))!);
  await add('plain entry, RFC 3161 token verified, witness pinned and required', 7, pinned);
  await add('redacted entry, RFC 3161 token verified, witness pinned and required', 3, pinned);
  await add('plain entry, token and cosignature present but not trusted', 7, keysOnly);

  const bot = await f.token('acme', 'bot');
  for (const step of ['r1', 'r2']) await decide(f, bot, step);
  const { anchor } = await f.store.anchors.signCurrent(
    'acme',
    await new Keyring(f.dir, f.store).signer('acme'),
    f.now.value.toISOString(),
  );
  await attestor().attest(anchor);
  await add('redacted entry, noop timestamp, witness pinned and required', 2, pinned);
  await add('plain entry, noop timestamp, witness pinned and required', 15, pinned);

  for (const c of cases) {
    const anchorLine = (c.doc.proof as { anchor: { timestamp?: unknown; witnesses?: unknown[] } }).anchor;
    const attested = anchorLine.timestamp !== undefined && anchorLine.witnesses?.length === 1;
    if (c.name.includes('bare anchor') === attested) {
      throw new Error(`${c.name}: the anchor is not attested as the case says`);
    }
  }
  return {
    cases,
    keys,
    close: async () => {
      await witnessApp.close();
      await tsa.close();
      tmp.cleanup();
      await f.close();
    },
  };
}
