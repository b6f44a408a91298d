import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorAttestor } from '../../src/daemon/attest/anchor-attestor.js';
import { requestTimestamp } from '../../src/daemon/attest/tsa-client.js';
import { decodeBase64, encodeBase64, encodeUtf8 } from '../../src/evidence/encoding.js';
import { sha256 } from '../../src/evidence/node-crypto.js';
import { checkTimestampToken, parseTsaRoots } from '../../src/evidence/timestamp/token-check.js';
import { verifyExport } from '../../src/evidence/verify/index.js';
import { nodeCrypto } from '../../src/evidence/node-crypto.js';
import { Keyring } from '../../src/store/keyring.js';
import { exportText, decide } from '../helpers/real-export.js';
import { fixture } from '../helpers/fixture.js';
import { capability, register } from '../helpers/registry.js';
import { startTestTsa, type TestTsa } from '../helpers/tsa.js';

const payload = encodeUtf8('{"a head payload":1}');
const digest = sha256(payload);
const quiet = { info: () => undefined, warn: () => undefined };

describe('RFC 3161 timestamps against a real authority (openssl ts -reply)', () => {
  let tsa: TestTsa;
  beforeAll(async () => {
    tsa = await startTestTsa('grant');
  });
  afterAll(async () => tsa.close());

  it('keeps a granted token for the digest, with the nonce echoed, that verifies under the CA', async () => {
    const t = await requestTimestamp(tsa.url, digest);
    expect(t).toMatchObject({ authority: tsa.url, digest: Buffer.from(digest).toString('hex') });
    expect(t.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const verdict = await checkTimestampToken(
      t.token!,
      payload,
      t.time,
      parseTsaRoots([tsa.rootDer]),
      sha256,
    );
    expect(verdict).toMatchObject({ ok: true });
  });

  it('fails each broken binding with its own code', async () => {
    const t = await requestTimestamp(tsa.url, digest);
    const roots = parseTsaRoots([tsa.rootDer]);
    const code = async (token: string, p: Uint8Array, time: string, r = roots) => {
      const v = await checkTimestampToken(token, p, time, r, sha256);
      return v.ok ? 'ok' : v.code;
    };
    expect(await code(t.token!, payload, t.time, parseTsaRoots([tsa.otherRootDer]))).toBe(
      'timestamp_untrusted',
    );
    expect(await code(t.token!, encodeUtf8('another head'), t.time)).toBe('timestamp_imprint_mismatch');
    const later = new Date(Date.parse(t.time) + 5000).toISOString();
    expect(await code(t.token!, payload, later)).toBe('timestamp_time_mismatch');
    // The same second, other milliseconds: §6.1 compares to the second.
    expect(await code(t.token!, payload, t.time.replace(/\.\d{3}Z$/, '.999Z'))).toBe('ok');
    // The signature is the token's last field: flip its last byte.
    const der = decodeBase64(t.token!)!;
    der[der.length - 1]! ^= 0x01;
    expect(await code(encodeBase64(der), payload, t.time)).toBe('timestamp_signature_invalid');
    expect(await code('not base64!', payload, t.time)).toBe('timestamp_token_malformed');
    // Signed by a certificate of the trusted CA that is not allowed to stamp time.
    const resigned = tsa.resignWithoutTimestampingEku(t.token!);
    expect(await code(resigned, payload, t.time)).toBe('timestamp_eku_missing');
    expect(await code(encodeBase64(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x00])), payload, t.time)).toBe(
      'timestamp_token_malformed',
    );
  });

  it('stamps each new anchor; the export carries the token and the verifier reports it verified', async () => {
    const f = await fixture();
    try {
      const bot = await f.token('acme', 'bot');
      await register(f.store, 'acme', {
        caps: [capability('acme', 'crm.read')],
        grants: [['bot', 'crm.read']],
        tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
      });
      for (let i = 0; i < 3; i++) expect(await decide(f, bot, `s${i}`)).toBe(200);
      const keyring = new Keyring(f.dir, f.store);
      const { anchor } = await f.store.anchors.signCurrent(
        'acme',
        await keyring.signer('acme'),
        new Date().toISOString(),
      );
      await new AnchorAttestor(f.store, { tsaUrl: tsa.url, witnesses: [], log: quiet }).attest(anchor);
      expect((await f.store.anchors.latest('acme'))?.timestamp?.token).toBeDefined();
      expect(await decide(f, bot, 's9')).toBe(200);
      const text = await exportText(f.store, keyring, 'acme', () => new Date());
      const key = decodeBase64((await f.store.keys.active('acme'))!.publicKey)!;
      const trusted = await verifyExport([text], { publicKeys: [key], tsaRoots: [tsa.rootDer] }, nodeCrypto);
      expect(trusted.findings).toEqual([]);
      expect(trusted.timestamps).toMatchObject({ verified: 1, invalid: 0, unverified: 0 });
      const unrooted = await verifyExport([text], { publicKeys: [key] }, nodeCrypto);
      expect(unrooted.result).toBe('pass');
      expect(unrooted.timestamps).toMatchObject({ verified: 0, unverified: 1 });
      const wrongRoot = await verifyExport(
        [text],
        { publicKeys: [key], tsaRoots: [tsa.otherRootDer] },
        nodeCrypto,
      );
      expect(wrongRoot.findings.map((x) => x.code)).toEqual(['timestamp_untrusted']);
      expect(wrongRoot.timestamps).toMatchObject({ verified: 0, invalid: 1 });
    } finally {
      await f.close();
    }
  });
});

describe('a timestamp authority that does not grant, or replays', () => {
  it('keeps no token from a rejection, and the rejection itself never verifies', async () => {
    const tsa = await startTestTsa('reject');
    try {
      await expect(requestTimestamp(tsa.url, digest)).rejects.toThrow(/refused \(status 2\)/);
      const res = await fetch(tsa.url, {
        method: 'POST',
        body: Buffer.from(
          (await import('../../src/evidence/timestamp/rfc3161.js')).timestampRequest(
            digest,
            Uint8Array.of(1, 2, 3),
          ),
        ),
      });
      const token = encodeBase64(new Uint8Array(await res.arrayBuffer()));
      const v = await checkTimestampToken(
        token,
        payload,
        new Date().toISOString(),
        parseTsaRoots([tsa.rootDer]),
        sha256,
      );
      expect(v).toMatchObject({ ok: false, code: 'timestamp_not_granted' });
    } finally {
      await tsa.close();
    }
  });

  it('never verifies a token signed with a digest weaker than SHA-256', async () => {
    const tsa = await startTestTsa('sha1');
    try {
      const t = await requestTimestamp(tsa.url, digest); // granted: the daemon keeps it
      const v = await checkTimestampToken(t.token!, payload, t.time, parseTsaRoots([tsa.rootDer]), sha256);
      expect(v).toMatchObject({ ok: false, code: 'timestamp_weak_hash' });
    } finally {
      await tsa.close();
    }
  });

  it('keeps no replayed response: its nonce is not this request’s', async () => {
    const tsa = await startTestTsa('replay');
    try {
      await requestTimestamp(tsa.url, digest);
      await expect(requestTimestamp(tsa.url, digest)).rejects.toThrow(/nonce/);
    } finally {
      await tsa.close();
    }
  });

  it('records no timestamp when the authority is down, and says so in its health', async () => {
    const f = await fixture();
    try {
      const bot = await f.token('acme', 'bot');
      await register(f.store, 'acme', {
        caps: [capability('acme', 'crm.read')],
        grants: [['bot', 'crm.read']],
        tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
      });
      expect(await decide(f, bot, 's1')).toBe(200);
      const { anchor } = await f.store.anchors.signCurrent(
        'acme',
        await new Keyring(f.dir, f.store).signer('acme'),
        new Date().toISOString(),
      );
      const attestor = new AnchorAttestor(f.store, {
        tsaUrl: 'http://127.0.0.1:9/tsr',
        witnesses: [],
        log: quiet,
      });
      await attestor.attest(anchor);
      expect((await f.store.anchors.latest('acme'))?.timestamp).toBeUndefined();
      expect(attestor.health().timestamps).toEqual({ authority: 'rfc3161', failing: true });
      // Without an authority: the noop placeholder, labelled so.
      await new AnchorAttestor(f.store, { witnesses: [], log: quiet }).attest(anchor);
      expect((await f.store.anchors.latest('acme'))?.timestamp).toMatchObject({
        authority: 'noop',
        noop: true,
      });
    } finally {
      await f.close();
    }
  });
});
