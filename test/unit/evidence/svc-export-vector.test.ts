import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildSvcExportVector } from './svc-export-generator.js';
import { vectorPath } from './vector-paths.js';

const EXPORT_FILE = vectorPath('svc-export/export.jsonl');
const KEY_FILE = vectorPath('svc-export/public-key.b64');

describe('the committed svc export vector', () => {
  const vector = buildSvcExportVector();

  if (process.env.SVC_WRITE_VECTORS === '1') {
    it('is rewritten (SVC_WRITE_VECTORS=1)', () => {
      mkdirSync(vectorPath('svc-export'), { recursive: true });
      writeFileSync(EXPORT_FILE, vector.jsonl);
      writeFileSync(KEY_FILE, vector.publicKeyBase64 + '\n');
      expect(readFileSync(EXPORT_FILE, 'utf8')).toBe(vector.jsonl);
    });
    return;
  }

  it('is exactly what the deterministic generator makes', () => {
    expect(readFileSync(EXPORT_FILE, 'utf8')).toBe(vector.jsonl);
    expect(readFileSync(KEY_FILE, 'utf8')).toBe(vector.publicKeyBase64 + '\n');
  });

  it('is generated deterministically', () => {
    expect(buildSvcExportVector()).toEqual(vector);
  });
});
