import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretBox, secretKeyFile } from '../../../src/integration/secret-box.js';
import { tmpDir } from '../../helpers/tmp.js';

describe('SecretBox (AES-256-GCM, key file outside the database)', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());
  const dir = () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    return t.path;
  };

  it('makes an owner-only key once, and opens only what it sealed for that tenant and name', () => {
    const root = dir();
    expect(() => SecretBox.open(root, { create: false })).toThrow(/no secret key/);
    const box = SecretBox.open(root, { create: true });
    expect(statSync(secretKeyFile(root)).mode & 0o777).toBe(0o600);
    const sealed = box.seal('acme', 'crm', 'tok-123');
    expect(Buffer.from(sealed.sealed).includes(Buffer.from('tok-123'))).toBe(false);
    const again = SecretBox.open(root, { create: true });
    expect(again.keyId).toBe(box.keyId);
    expect(again.open('acme', 'crm', sealed)).toBe('tok-123');
    // bound to its slot: moved to another name or tenant, it does not open
    expect(() => box.open('acme', 'mail', sealed)).toThrow(/altered or moved/);
    expect(() => box.open('other', 'crm', sealed)).toThrow(/altered or moved/);
    const tampered = Buffer.from(sealed.sealed);
    tampered[14]! ^= 1;
    expect(() => box.open('acme', 'crm', { ...sealed, sealed: tampered })).toThrow(/altered or moved/);
    expect(() => box.open('acme', 'crm', { ...sealed, keyId: '0000000000000000' })).toThrow(/another key/);
    expect(readFileSync(secretKeyFile(root), 'utf8')).not.toContain('tok-123');
  });

  it('refuses a key file others can read, or one that is not a 256-bit key', () => {
    const root = dir();
    SecretBox.open(root, { create: true });
    chmodSync(secretKeyFile(root), 0o644);
    expect(() => SecretBox.open(root, { create: false })).toThrow(/readable by group or others/);
    writeFileSync(secretKeyFile(root), 'c2hvcnQ=\n', { mode: 0o600 });
    chmodSync(secretKeyFile(root), 0o600);
    expect(() => SecretBox.open(root, { create: false })).toThrow(/256-bit key/);
  });
});
