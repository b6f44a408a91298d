import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKekFile, KekSet, kekIdOf } from '../../../src/store/kek.js';
import { tmpDir } from '../../helpers/tmp.js';

describe('KEK sealing (AES-256-GCM bound to its row and KEK)', () => {
  const tmp = tmpDir('svc-kek-');
  afterAll(() => tmp.cleanup());
  const a = join(tmp.path, 'a.key');
  const b = join(tmp.path, 'b.key');
  const aId = createKekFile(a);
  const bId = createKekFile(b);
  const place = { kind: 'signing' as const, tenantId: 'acme', keyId: 'ed25519-0011223344556677' };
  const secret = Buffer.from(
    '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI\n-----END PRIVATE KEY-----\n',
  );

  it('seals under --kek-file, opens with it or as --previous-kek-file, and names the KEK id, never the key', () => {
    const sealed = KekSet.read({ kekFile: a }).seal(place, secret);
    expect(sealed.kekId).toBe(aId);
    expect(aId).toMatch(/^kek-[0-9a-f]{16}$/);
    expect(Buffer.from(sealed.sealed).includes(secret)).toBe(false);
    expect(KekSet.read({ kekFile: a }).open(place, sealed)).toEqual(secret);
    expect(KekSet.read({ kekFile: b, previousKekFile: a }).open(place, sealed)).toEqual(secret);
    expect(() => KekSet.read({ kekFile: b }).open(place, sealed)).toThrow(
      `sealed under key-encryption key ${aId}; this process holds ${bId}`,
    );
    expect(() => KekSet.none().open(place, sealed)).toThrow(/this process was given no key-encryption key/);
    expect(() => KekSet.none().seal(place, secret)).toThrow(/needs a key-encryption key/);
  });

  it('altered bytes, another row, or a relabelled KEK id do not open', () => {
    const keks = KekSet.read({ kekFile: a, previousKekFile: b });
    const sealed = keks.seal(place, secret);
    const flipped = Buffer.from(sealed.sealed);
    flipped[15]! ^= 1;
    expect(() => keks.open(place, { ...sealed, sealed: flipped })).toThrow(/altered or moved/);
    expect(() => keks.open({ ...place, tenantId: 'beta' }, sealed)).toThrow(/altered or moved/);
    expect(() => keks.open({ ...place, keyId: 'ed25519-ffffffffffffffff' }, sealed)).toThrow(
      /altered or moved/,
    );
    // Relabelled with the other KEK this process holds: opened with that KEK, it fails.
    expect(() => keks.open(place, { ...sealed, kekId: bId })).toThrow(/altered or moved/);
    expect(() => keks.open(place, { ...sealed, sealed: new Uint8Array(10) })).toThrow(/altered or moved/);
  });

  it('a KEK file readable by others, or not 32 bytes of base64, is refused by flag', () => {
    const loose = join(tmp.path, 'loose.key');
    writeFileSync(loose, `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o600 });
    chmodSync(loose, 0o640);
    expect(() => KekSet.read({ kekFile: loose })).toThrow(/--kek-file: .*readable by group or others/);
    const short = join(tmp.path, 'short.key');
    writeFileSync(short, 'c2hvcnQ=\n', { mode: 0o600 });
    expect(() => KekSet.read({ kekFile: a, previousKekFile: short })).toThrow(
      /--previous-kek-file: .* does not hold a key-encryption key/,
    );
    expect(() => KekSet.read({ previousKekFile: a })).toThrow(/--previous-kek-file needs --kek-file/);
    expect(() => createKekFile(a)).toThrow(/already exists/);
    expect(kekIdOf(Buffer.alloc(32, 7))).not.toBe(kekIdOf(Buffer.alloc(32, 8)));
  });
});
