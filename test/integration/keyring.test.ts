import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newSigningKey } from '../../src/evidence/keys.js';
import { Keyring } from '../../src/store/keyring.js';
import { thrown } from '../helpers/op-race.js';
import { fixture, type Fixture } from '../helpers/fixture.js';

/**
 * A key file that does not hold the recorded key (copied from another data dir after a
 * restore, or another tenant's) must never sign: its heads would not verify under the key
 * auditors pin, and the journal would look forged from that head on.
 */
describe('the keyring loads only the key the store records', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await fixture();
  });
  afterEach(() => f.close());

  it('signs with the matching file, and refuses a file holding another key', async () => {
    const key = (await f.store.keys.active('acme'))!;
    expect((await new Keyring(f.dir, f.store).signer('acme')).keyId).toBe(key.keyId);

    const file = f.dir.keyFile('acme', key.keyId);
    writeFileSync(file, newSigningKey().privateKeyPem, { mode: 0o600 });
    const err = await thrown(() => new Keyring(f.dir, f.store).signer('acme'));
    expect(err).toMatchObject({ code: 'unavailable' });
    expect(err.message).toContain(`does not hold signing key ${key.keyId} of tenant acme`);
  });
});
