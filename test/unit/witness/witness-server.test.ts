import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawPublicKey } from '../../../src/evidence/keys.js';
import { logIdFor } from '../../../src/evidence/log-id.js';
import { ed25519Signer, sha256 } from '../../../src/evidence/node-crypto.js';
import { signTreeHead, unsignedTreeHead, type TreeHead } from '../../../src/evidence/tree-head.js';
import { buildWitnessApp, listenWitness } from '../../../src/witness/server.js';
import { LogWitness } from '../../../src/witness/witness.js';
import { call } from '../../helpers/https.js';
import { tmpDir } from '../../helpers/tmp.js';

/**
 * Malformed heads over real HTTP to a listening witness: every one is a 400 naming the
 * field, found before anything hashes it, and nothing reaches the state file.
 */
describe('witness: a malformed head is a 400 naming the field', () => {
  const tmp = tmpDir('svc-witness-head-');
  const state = join(tmp.path, 'state.json');
  const logKey = generateKeyPairSync('ed25519').privateKey;
  const logId = logIdFor('acme', sha256);
  let app: FastifyInstance;
  let url: string;
  let good: TreeHead;

  const cosign = (body: unknown) => call(`${url}/v1/cosign`, { method: 'POST', body });
  const rawCosign = (rawBody: string) =>
    call(`${url}/v1/cosign`, { method: 'POST', headers: { 'content-type': 'application/json' }, rawBody });

  beforeAll(async () => {
    const witness = new LogWitness({
      privateKey: generateKeyPairSync('ed25519').privateKey,
      stateFile: state,
      logKeys: new Map([[logId, rawPublicKey(logKey)]]),
    });
    app = buildWitnessApp(witness);
    url = await listenWitness(app, '127.0.0.1:0', false);
    good = signTreeHead(
      unsignedTreeHead(logId, 1, new Uint8Array(32).fill(7), '2026-01-31T12:00:00.000Z'),
      ed25519Signer(logKey),
    );
  });
  afterAll(async () => {
    await app.close();
    tmp.cleanup();
  });

  it('a lone surrogate in signed_at is a 400 on head.signed_at, not a 500 from the hash', async () => {
    const r = await cosign({ head: { ...good, signed_at: '\ud800' }, proof: [] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'head.signed_at' });
    expect(r.body.reason).toMatch(/^head\.signed_at: expected well-formed Unicode text/);
    expect(existsSync(state)).toBe(false);
  });

  it.each([
    ['log_id', { log_id: 'acme\udfff' }, /lone surrogate/],
    ['log_id', { log_id: 'acme' }, /expected a log id starting svc\/log-id\/1\//],
    ['root_hash', { root_hash: '\ud800'.repeat(64) }, /lone surrogate/],
    ['root_hash', { root_hash: 'AB'.repeat(32) }, /64 lowercase hex/],
    ['signature', { signature: 'AAAA\udc00' }, /lone surrogate/],
    ['signature', { signature: 'not base64!' }, /expected base64/],
    ['signed_at', { signed_at: 'yesterday' }, /RFC 3339/],
    ['signed_at', { signed_at: '2026-02-30T00:00:00Z' }, /RFC 3339/],
    ['signed_at', { signed_at: 1_700_000_000 }, /string/],
    ['tree_size', { tree_size: 2 ** 53 }, /./],
    ['index', { index: 1.5 }, /int/],
  ])('%s: %j is refused naming the field', async (field, change, reason) => {
    const r = await cosign({ head: { ...good, ...change }, proof: [] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: `head.${field}` });
    expect(r.body.reason).toMatch(reason);
    expect(existsSync(state)).toBe(false);
  });

  it('the I-JSON guard comes first: a duplicate key and a non-finite number are 400s naming the path', async () => {
    const body = JSON.stringify({ head: good, proof: [] });
    const dup = await rawCosign(body.replace('"log_id":', '"log_id":"x","log_id":'));
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ field: 'head.log_id' });
    const huge = await rawCosign(body.replace(/"tree_size":1/, '"tree_size":1e400'));
    expect(huge.status).toBe(400);
    expect(huge.body).toMatchObject({ field: 'head.tree_size' });
  });

  it('property: a lone surrogate anywhere in any string field is a 400 naming that field', async () => {
    const fields = ['log_id', 'root_hash', 'signed_at', 'signature'] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...fields),
        fc.string({ maxLength: 20 }),
        fc.integer({ min: 0xd800, max: 0xdfff }),
        fc.string({ maxLength: 20 }),
        async (field, before, unit, after) => {
          const value = `${before}${String.fromCharCode(unit)}${after}`;
          fc.pre(!value.isWellFormed());
          const r = await cosign({ head: { ...good, [field]: value }, proof: [] });
          expect(r.status).toBe(400);
          expect(r.body).toMatchObject({ code: 'invalid_request', field: `head.${field}` });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('property: any JSON value in any head field is answered below 500, and a 400 names a head field', async () => {
    const fields = ['log_id', 'index', 'root_hash', 'tree_size', 'signed_at', 'signature'] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fields), fc.jsonValue({ maxDepth: 3 }), async (field, value) => {
        const r = await cosign({ head: { ...good, [field]: value }, proof: [] });
        expect(r.status).toBeLessThan(500);
        // A malformed field is named; a well-formed head that fails a check gets the witness's code.
        if (r.body.code === 'invalid_request') expect(String(r.body.field)).toMatch(/^head\./);
      }),
      { numRuns: 80 },
    );
  });

  it('a well-formed head is still cosigned', async () => {
    const r = await cosign({ head: good, proof: [] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(existsSync(state)).toBe(true);
  });
});
