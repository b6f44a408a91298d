import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newToken } from '../../../src/core/token.js';
import { LeakScan } from '../../helpers/leak-scan.js';

describe('the leak scanner', () => {
  const secret = 'whsec_3e1b0c9f2d7a4e58';

  it('finds a remembered secret, plain, URL-encoded or base64, without printing it', () => {
    const scan = new LeakScan();
    scan.remember(secret, 'chat signing secret');
    scan.remember('a/b+c=d&e f', 'secret: value');
    expect(scan.scan(`{"msg":"verify with ${secret}"}`, 'log')).toHaveLength(1);
    expect(scan.scan(`url=/cb?k=${encodeURIComponent('a/b+c=d&e f')}`, 'log')).toHaveLength(1);
    expect(scan.scan(Buffer.from(secret).toString('base64'), 'log')).toHaveLength(1);
    expect(() => scan.check(`x ${secret} y`, 'daemon log')).toThrow(/chat signing secret in daemon log/);
    try {
      scan.check(`x ${secret} y`, 'daemon log');
    } catch (err) {
      expect((err as Error).message).not.toContain(secret);
    }
    expect(scan.scan('nothing to see; whsec_ alone is no secret', 'log')).toEqual([]);
  });

  it('finds any bearer token and any PEM private key, remembered or not', () => {
    const scan = new LeakScan();
    const { token } = newToken();
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(scan.scan(`"authorization":"Bearer ${token}"`, 'log').map((l) => l.label)).toEqual([
      'a bearer token',
    ]);
    expect(scan.scan(pem, 'stdout').map((l) => l.label)).toEqual(['a PEM private key']);
    expect(scan.scan('-----BEGIN EC PRIVATE KEY-----', 'stdout')).toHaveLength(1);
    // Where printing a token is the point (token issue), only the other rules apply.
    expect(scan.scan(token, 'svc token issue', { tokens: false })).toEqual([]);
    expect(scan.scan('-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA', 'stdout')).toEqual([]);
  });
});
