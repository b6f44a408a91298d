/**
 * The tamper corpus on disk, test/vectors/tamper/: a real export captured from the daemon
 * (original.jsonl), what the cases need besides it (context.json: the trusted keys, the
 * log's test private key, tenant other's head), one file per case under cases/, the
 * expected codes (cases.json) and README.md listing every case. The case files are a
 * pure function of the original and the context, so a test regenerates and compares them;
 * SVC_WRITE_VECTORS=1 captures a fresh export and rewrites everything.
 */
import { createPrivateKey } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawPublicKey } from '../../src/evidence/keys.js';
import { privateKeyFromSeed, VECTOR_WITNESS_SEED } from '../unit/evidence/svc-export-generator.js';
import type { RealExport } from './real-export.js';
import { TAMPER_CASES, type Json, type TamperCase, type TamperContext } from './tamper-cases.js';

export const CORPUS_DIR = fileURLToPath(new URL('../vectors/tamper/', import.meta.url));

/** RFC 8032 section 7.1 TEST 2: a published key, so "a forger's key" is the same in every run. */
export const attackerKey = privateKeyFromSeed(VECTOR_WITNESS_SEED);

export interface Corpus {
  context: TamperContext;
  trusted: Uint8Array[];
  original: string;
}

interface ContextFile {
  note: string;
  trusted_public_keys: string[];
  log_private_key_pkcs8: string;
  other_head: Json;
  other_public_key: string;
}

export function contextOf(
  real: Pick<RealExport, 'text' | 'logKey' | 'otherHead' | 'otherKey' | 'keys'>,
): Corpus {
  return {
    original: real.text,
    trusted: real.keys,
    context: {
      lines: real.text.slice(0, -1).split('\n'),
      logKey: real.logKey,
      attackerKey,
      otherHead: real.otherHead,
      otherKey: real.otherKey,
    },
  };
}

export function loadCorpus(): Corpus {
  const file = JSON.parse(readFileSync(join(CORPUS_DIR, 'context.json'), 'utf8')) as ContextFile;
  const b64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));
  return contextOf({
    text: readFileSync(join(CORPUS_DIR, 'original.jsonl'), 'utf8'),
    keys: file.trusted_public_keys.map(b64),
    logKey: createPrivateKey({
      key: Buffer.from(file.log_private_key_pkcs8, 'base64'),
      format: 'der',
      type: 'pkcs8',
    }),
    otherHead: file.other_head,
    otherKey: b64(file.other_public_key),
  });
}

export const caseFile = (c: TamperCase): string => join(CORPUS_DIR, 'cases', `${c.id}.jsonl`);
export const caseBytes = (c: TamperCase, ctx: TamperContext): Buffer => Buffer.from(c.file(ctx));

export function writeCorpus(corpus: Corpus): void {
  rmSync(CORPUS_DIR, { recursive: true, force: true });
  mkdirSync(join(CORPUS_DIR, 'cases'), { recursive: true });
  const { context } = corpus;
  writeFileSync(join(CORPUS_DIR, 'original.jsonl'), corpus.original);
  const file: ContextFile = {
    note: 'test material only: the keys of a throwaway data dir made by test/helpers/real-export.ts',
    trusted_public_keys: corpus.trusted.map((k) => Buffer.from(k).toString('base64')),
    log_private_key_pkcs8: context.logKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    other_head: context.otherHead,
    other_public_key: Buffer.from(context.otherKey).toString('base64'),
  };
  writeFileSync(join(CORPUS_DIR, 'context.json'), JSON.stringify(file, null, 2) + '\n');
  const expected = TAMPER_CASES.map((c) => ({
    id: c.id,
    codes: c.codes,
    ...(c.trust ? { trust: c.trust } : {}),
    ...(c.requireAnchors ? { require_anchors: true } : {}),
  }));
  writeFileSync(join(CORPUS_DIR, 'cases.json'), JSON.stringify(expected, null, 2) + '\n');
  for (const c of TAMPER_CASES) writeFileSync(caseFile(c), caseBytes(c, context));
  writeFileSync(join(CORPUS_DIR, 'README.md'), readme());
}

function readme(): string {
  const attacker = Buffer.from(rawPublicKey(attackerKey)).toString('base64');
  const rows = TAMPER_CASES.map(
    (c) =>
      `| \`${c.id}\` | ${c.what.replaceAll('|', '\\|')}${c.trust ? ' (verified under the forger key only)' : ''}${c.requireAnchors ? ' (--require-anchors)' : ''} | ${[
        ...c.codes,
      ]
        .sort()
        .map((code) => `\`${code}\``)
        .join(', ')} |`,
  );
  return `# Tamper corpus: a real export and ${TAMPER_CASES.length} mutations of it

\`original.jsonl\` is an \`svc.export/v1\` file written by the daemon's own code path
(\`test/helpers/real-export.ts\`): 14 decisions of tenant \`acme\` through
\`POST /v1/action\` (entry 5 is a refusal), anchored by the daemon's schedule at 5, 10
and 13 entries, the signing key rotated after entry 8 (so the anchor at 5 names the
retired key), entries 2..4 redacted by the record at 11, and a head over all 14 signed
at export time. It passes \`svc verify\` under both keys in \`context.json\`.

Each file in \`cases/\` is the original with exactly one mutation. Verified under the
two trusted keys, each fails with exactly the finding codes listed (codes are
documented in \`src/evidence/verify/README.md\`). \`cases.json\` holds the same list for
tools. The forger key is RFC 8032 section 7.1 TEST 2 (public key \`${attacker}\`).

\`test/integration/tamper-suite.test.ts\` checks that the original passes, that every
case file is what \`test/helpers/tamper-cases.ts\` makes from the original, that each
fails with its codes, and applies every mutation to a fresh export too.
\`SVC_WRITE_VECTORS=1 npx vitest run test/integration/tamper-suite.test.ts\` captures a
new export and rewrites this folder. \`context.json\` holds a private key of a
throwaway data dir: test material, never a key of any deployment.

| case | mutation | expected findings |
| --- | --- | --- |
${rows.join('\n')}
`;
}
