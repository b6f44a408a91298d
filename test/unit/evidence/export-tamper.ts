/**
 * Mutations of the committed export vector for the verifier tests. Re-signing uses the
 * vector's published test keys, the way an attacker holding (or not holding) a key would.
 */
import { sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cjson } from '../../../src/evidence/cjson.js';
import { encodeBase64 } from '../../../src/evidence/encoding.js';
import { keyIdFor, rawPublicKey } from '../../../src/evidence/keys.js';
import { nodeCrypto } from '../../../src/evidence/node-crypto.js';
import { signTreeHead, type TreeHead, type UnsignedTreeHead } from '../../../src/evidence/tree-head.js';
import {
  verifyExport,
  type VerificationReport,
  type VerifyOptions,
} from '../../../src/evidence/verify/index.js';
import { privateKeyFromSeed, VECTOR_LOG_SEED, VECTOR_WITNESS_SEED } from './svc-export-generator.js';
import { vectorPath } from './vector-paths.js';

export type Json = Record<string, unknown>;

export const VECTOR_TEXT = readFileSync(vectorPath('svc-export/export.jsonl'), 'utf8');
export const VECTOR_LINES: readonly string[] = VECTOR_TEXT.slice(0, -1).split('\n');
export const LOG_KEY = new Uint8Array(
  Buffer.from(readFileSync(vectorPath('svc-export/public-key.b64'), 'utf8').trim(), 'base64'),
);

export const logPrivateKey = privateKeyFromSeed(VECTOR_LOG_SEED);
/** A second real key: the witness's, standing in for "some other key". */
export const otherPrivateKey = privateKeyFromSeed(VECTOR_WITNESS_SEED);
export const OTHER_KEY = rawPublicKey(otherPrivateKey);
export const OTHER_KEY_ID = keyIdFor(OTHER_KEY);

/** Line indexes (0-based) in the vector. */
export const L = {
  header: 0,
  e1: 1,
  e2: 2,
  e3: 3,
  anchor3: 4,
  e4: 5,
  e5: 6,
  e6: 7,
  anchor6: 8,
  e7: 9,
} as const;

/** Change one hex digit: a single-bit-scale edit that keeps the field well-formed. */
export const flipFirstHexDigit = (text: string): string => (text[0] === '0' ? '1' : '0') + text.slice(1);

export const parse = (line: string): Json => JSON.parse(line) as Json;
export const joinLines = (lines: readonly string[]): string => lines.map((line) => line + '\n').join('');

/** Replace line `index` by CJSON of `edit(parsed line)`. */
export function editLine(lines: readonly string[], index: number, edit: (line: Json) => Json): string[] {
  const copy = [...lines];
  copy[index] = cjson(edit(parse(copy[index]!)));
  return copy;
}

export function signHead(head: Json, key = logPrivateKey): Json {
  const { signature: _old, ...unsigned } = head;
  // node:crypto directly, so a bug in ed25519Signer cannot hide here.
  const signed: TreeHead = signTreeHead(
    unsigned as unknown as UnsignedTreeHead,
    (message) => new Uint8Array(sign(null, message, key)),
  );
  return { ...signed };
}

/** Re-sign every head with `key` and name it everywhere, as a forger with their own key would. */
export function resignEverything(lines: readonly string[], key = otherPrivateKey): string[] {
  const raw = rawPublicKey(key);
  return lines.map((line) => {
    const value = parse(line);
    if (value.type === 'header') {
      return cjson({
        ...value,
        head: signHead(value.head as Json, key),
        public_key: encodeBase64(raw),
        signing_key_id: keyIdFor(raw),
      });
    }
    if (value.type === 'anchor')
      return cjson({ ...value, head: signHead(value.head as Json, key), key_id: keyIdFor(raw) });
    return line;
  });
}

export async function verify(
  input: string | Uint8Array | readonly (string | Uint8Array)[],
  options: Partial<VerifyOptions> = {},
): Promise<VerificationReport> {
  const source = typeof input === 'string' || input instanceof Uint8Array ? [input] : input;
  return verifyExport(source, { publicKeys: [LOG_KEY], ...options }, nodeCrypto);
}

/** The distinct finding codes of a report, sorted. */
export const codesOf = (report: VerificationReport): string[] =>
  [...new Set(report.findings.map((finding) => finding.code))].sort();
