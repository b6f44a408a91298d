import { generateKeyPairSync } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CosignatureRefused, WitnessClient } from '../../../src/daemon/attest/witness-client.js';
import { signCosignature } from '../../../src/evidence/cosignature.js';
import { encodeBase64 } from '../../../src/evidence/encoding.js';
import { rawPublicKey } from '../../../src/evidence/keys.js';
import { logIdFor } from '../../../src/evidence/log-id.js';
import { ed25519Signer, sha256 } from '../../../src/evidence/node-crypto.js';
import { signTreeHead, unsignedTreeHead } from '../../../src/evidence/tree-head.js';

const witnessKey = generateKeyPairSync('ed25519').privateKey;
const pinnedKey = rawPublicKey(witnessKey);
const head = signTreeHead(
  unsignedTreeHead(logIdFor('acme', sha256), 3, new Uint8Array(32).fill(1), '2026-01-31T12:00:00.000Z'),
  ed25519Signer(generateKeyPairSync('ed25519').privateKey),
);
const signedAt = '2026-01-31T12:00:01.000Z';
const genuine = {
  witness_id: 'w1',
  public_key: encodeBase64(pinnedKey),
  signature: signCosignature(head, signedAt, ed25519Signer(witnessKey)),
  signed_at: signedAt,
};

const servers: Server[] = [];
const clients: WitnessClient[] = [];
async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}
function client(url: string): WitnessClient {
  const c = new WitnessClient({ url, id: 'w1', key: pinnedKey });
  clients.push(c);
  return c;
}
const answering =
  (body: unknown, status = 200): RequestListener =>
  (req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** The daemon's witness client against real HTTP servers on loopback. */
describe('WitnessClient: only the pinned witness is kept', () => {
  it('keeps a genuine cosignature, with the pinned key, even when the answer names none', async () => {
    const { public_key: _omitted, ...bare } = genuine;
    const kept = await client(await serve(answering(bare))).cosign(head, []);
    expect(kept).toEqual(genuine);
  });

  it.each([
    ['another id', { ...genuine, witness_id: 'w2' }, /answered as witness "w2", not the pinned w1/],
    [
      'another key named',
      { ...genuine, public_key: encodeBase64(rawPublicKey(generateKeyPairSync('ed25519').privateKey)) },
      /a key other than the one pinned/,
    ],
    [
      'a signature by another key',
      {
        ...genuine,
        signature: signCosignature(head, signedAt, ed25519Signer(generateKeyPairSync('ed25519').privateKey)),
      },
      /does not verify under the key pinned for w1/,
    ],
    ['a signed_at that is no date-time', { ...genuine, signed_at: '\ud800' }, /no well-formed cosignature/],
  ])('refuses %s', async (_what, answer, message) => {
    const err = await client(await serve(answering(answer)))
      .cosign(head, [])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CosignatureRefused);
    expect((err as Error).message).toMatch(message);
  });

  it('never follows a redirect', async () => {
    let followed = 0;
    const target = await serve((req, res) => {
      followed++;
      answering(genuine)(req, res);
    });
    const redirecting = await serve((req, res) => {
      req.resume();
      res.writeHead(307, { location: `${target}v1/cosign` }).end('{}');
    });
    await expect(client(redirecting).cosign(head, [])).rejects.toThrow(/HTTP 307/);
    await expect(client(redirecting).lastSize(head.log_id)).rejects.toThrow(/HTTP 307/);
    expect(followed).toBe(0);
  });

  it('reads no more than 256 KiB of an answer', async () => {
    const huge = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(' '.repeat(300 * 1024));
    });
    await expect(client(huge).cosign(head, [])).rejects.toThrow(/answered more than 262144 bytes/);
  });
});
