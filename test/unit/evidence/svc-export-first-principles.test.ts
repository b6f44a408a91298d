/**
 * The project vector recomputed from evidence-format.md alone: node:crypto and a few lines
 * written here, nothing imported from src/evidence. If the primitives and this page ever
 * disagree, one of them misreads the spec.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { vectorPath } from './vector-paths.js';

type Obj = Record<string, unknown>;

const H = (...parts: (string | Buffer | number[])[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts)
    hash.update(typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part));
  return hash.digest();
};

/** RFC 8785 for the values this file holds: ES number and string forms, keys by UTF-16 order. */
const canon = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canon).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Obj;
    return `{${Object.keys(object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canon(object[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
};

const without = (object: Obj, ...keys: string[]): Obj =>
  Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));

/** RFC 6962 MTH over data items. */
const mth = (items: Buffer[]): Buffer => {
  if (items.length === 0) return H('');
  if (items.length === 1) return H([0], items[0]!);
  let k = 1;
  while (k * 2 < items.length) k *= 2;
  return H([1], mth(items.slice(0, k)), mth(items.slice(k)));
};

const ed25519Verify = (publicKeyBase64: string, message: string, signatureBase64: string): boolean => {
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyBase64, 'base64').toString('base64url') },
    format: 'jwk',
  });
  return verify(null, Buffer.from(message, 'utf8'), key, Buffer.from(signatureBase64, 'base64'));
};

const text = readFileSync(vectorPath('svc-export/export.jsonl'), 'utf8');
const trustedKey = readFileSync(vectorPath('svc-export/public-key.b64'), 'utf8').trim();
const rawLines = text.slice(0, -1).split('\n');
const lines = rawLines.map((line) => JSON.parse(line) as Obj);
const header = lines[0]!;
const entries = lines.filter((line) => line.type === 'entry');
const anchors = lines.map((line, i) => ({ line, i })).filter(({ line }) => line.type === 'anchor');
const blankContent = {
  intent_id: '',
  actor_id: '',
  capability: '',
  grant_id: '',
  tier: 0,
  allowed: false,
  amount_usd: 0,
};

describe('svc export vector, from first principles', () => {
  it('is LF-terminated canonical JSON, one object per line', () => {
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toMatch(/\r|\n\n/);
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
    for (const line of rawLines) expect(canon(JSON.parse(line))).toBe(line);
    expect(lines.map((line) => line.type)).toEqual([
      'header',
      'entry',
      'entry',
      'entry',
      'anchor',
      'entry',
      'entry',
      'entry',
      'anchor',
      'entry',
    ]);
  });

  it('derives its log id and key id (§1, §2)', () => {
    const logId = 'svc/log-id/1/' + H('svc/log-id/1', [0], header.tenant_id as string).toString('hex');
    expect(header.log_id).toBe(logId);
    for (const line of lines) if (line.type !== 'entry') expect((line.head as Obj).log_id).toBe(logId);
    for (const entry of entries) expect(entry.tenant_id).toBe(header.tenant_id);
    expect(header.public_key).toBe(trustedKey);
    // RFC 8032 section 7.1 TEST 1, as the vector's README says.
    expect(Buffer.from(trustedKey, 'base64').toString('hex')).toBe(
      'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    );
    const keyId = 'ed25519-' + H(Buffer.from(trustedKey, 'base64')).toString('hex').slice(0, 16);
    expect(header.signing_key_id).toBe(keyId);
    for (const { line } of anchors) expect(line.key_id).toBe(keyId);
  });

  it('has contiguous sequences and recomputable leaves except where redacted, every redacted field fixed (§3, §7)', () => {
    expect(entries.map((entry) => entry.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const record = entries.find((entry) => entry.capability === 'svc.journal.redact')!;
    const tombstone = record.tombstone as Obj;
    expect(record.allowed).toBe(true);
    expect(tombstone.to_sequence as number).toBeLessThan(record.sequence as number);
    for (const entry of entries) {
      const sequence = entry.sequence as number;
      if (sequence >= (tombstone.from_sequence as number) && sequence <= (tombstone.to_sequence as number)) {
        expect(entry).toMatchObject(blankContent);
        expect(entry).toMatchObject({
          record_hash: '0'.repeat(64),
          occurred_at: tombstone.removed_at,
          linked_at: tombstone.removed_at,
        });
        expect(canon(entry.tombstone)).toBe(canon(tombstone));
        continue; // a redacted leaf is taken as written
      }
      expect(entry.leaf).toBe(H(canon(without(entry, 'type', 'chain_hash', 'leaf'))).toString('hex'));
    }
  });

  it('chains every entry from the genesis value (§4)', () => {
    let chain = H('svc/chain/1', [0], header.log_id as string);
    for (const entry of entries) {
      chain = H([1], chain, Buffer.from(entry.leaf as string, 'hex'));
      expect(entry.chain_hash).toBe(chain.toString('hex'));
    }
  });

  it('has anchors right after their entry, over the right roots, signed by the trusted key (§5, §6)', () => {
    const leaves = entries.map((entry) => Buffer.from(entry.leaf as string, 'hex'));
    expect(anchors.map(({ line }) => (line.head as Obj).tree_size)).toEqual([3, 6]);
    for (const { line, i } of anchors) {
      const head = line.head as Obj;
      expect(lines[i - 1]!.sequence).toBe(head.tree_size);
      expect(head.index).toBe(head.tree_size);
      expect(head.root_hash).toBe(mth(leaves.slice(0, head.tree_size as number)).toString('hex'));
      expect(Buffer.from(head.signature as string, 'base64')).toHaveLength(64);
      expect(ed25519Verify(trustedKey, canon(without(head, 'signature')), head.signature as string)).toBe(
        true,
      );
      expect(line.algorithm).toBe('ed25519');
    }
  });

  it('has a header head over all entries, signed by the trusted key (§6)', () => {
    const head = header.head as Obj;
    expect(header.entry_count).toBe(7);
    expect(head.tree_size).toBe(7);
    expect(head.index).toBe(7);
    expect(head.root_hash).toBe(
      mth(entries.map((entry) => Buffer.from(entry.leaf as string, 'hex'))).toString('hex'),
    );
    expect(ed25519Verify(trustedKey, canon(without(head, 'signature')), head.signature as string)).toBe(true);
    expect(header.signature_algorithm).toBe('ed25519');
    expect(header.pre_anchor).toBeUndefined();
  });

  it('binds its timestamp digest and witness cosignature to the anchor head (§6.1, §6.2)', () => {
    const { line } = anchors[1]!;
    const head = without(line.head as Obj, 'signature');
    const timestamp = line.timestamp as Obj;
    expect(timestamp.noop).toBe(true);
    expect(timestamp.digest).toBe(H(canon(head)).toString('hex'));
    const [witness] = line.witnesses as Obj[];
    const payload = canon({ type: 'svc.cosignature/v1', head, signed_at: witness!.signed_at });
    expect(ed25519Verify(witness!.public_key as string, payload, witness!.signature as string)).toBe(true);
    expect(witness!.public_key).not.toBe(trustedKey);
  });

  it('does not verify under another key, so the checks above can fail', () => {
    const head = header.head as Obj;
    const witnessKey = (anchors[1]!.line.witnesses as Obj[])[0]!.public_key as string;
    expect(ed25519Verify(witnessKey, canon(without(head, 'signature')), head.signature as string)).toBe(
      false,
    );
    expect(
      ed25519Verify(
        trustedKey,
        canon({ ...without(head, 'signature'), tree_size: 8 }),
        head.signature as string,
      ),
    ).toBe(false);
  });
});
