import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWitnessPins } from '../../../src/daemon/attest/witness-pin.js';
import { createDeploymentCertificate } from '../../../src/tls/certificate.js';
import { tmpDir } from '../../helpers/tmp.js';

const KEY = '0y7X88EwmgvP1RMkF+Set8FXqPz8V7VxNvqfNgYW4eM=';
const OTHER = '11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=';

describe('--witness URL=ID=KEY and --witness-ca ID=FILE', () => {
  const tmp = tmpDir('svc-witness-pin-');
  const cert = join(tmp.path, 'cert.pem');
  beforeAll(async () =>
    writeFileSync(cert, (await createDeploymentCertificate({ now: new Date() })).certPem),
  );
  afterAll(() => tmp.cleanup());

  it('reads the URL, the id and the key (base64 keys end in "=")', () => {
    const [pin] = parseWitnessPins([`https://w.example:8095=audit-firm=${KEY}`], [`audit-firm=${cert}`]);
    expect(pin).toMatchObject({ url: 'https://w.example:8095/', id: 'audit-firm' });
    expect(Buffer.from(pin!.key).toString('base64')).toBe(KEY);
    expect(pin!.ca).toMatch(/BEGIN CERTIFICATE/);
  });

  it.each([
    ['http://127.0.0.1:8095', /--witness "http:\/\/127\.0\.0\.1:8095": expected URL=ID=KEY/],
    ['http://127.0.0.1:8095=w1', /expected URL=ID=KEY/],
    ['http://127.0.0.1:8095=w1=', /expected URL=ID=KEY/],
    ['http://127.0.0.1:8095==KEY', /expected URL=ID=KEY/],
    [`ftp://127.0.0.1=w1=${KEY}`, /expected an http or https URL/],
    [`http://127.0.0.1:8095/?x=w1=${KEY}`, /--witness/],
    [`http://127.0.0.1:8095=w 1=${KEY}`, /expected a witness id/],
    ['http://127.0.0.1:8095=w1=not-a-key', /--witness "not-a-key": expected base64 or hex/],
  ])('refuses %s naming the flag', (arg, message) => {
    expect(() => parseWitnessPins([arg])).toThrow(message);
  });

  it('refuses a repeated id or a key pinned twice', () => {
    expect(() => parseWitnessPins([`http://a=w1=${KEY}`, `http://b=w1=${OTHER}`])).toThrow(
      /w1: each witness id is given once/,
    );
    expect(() => parseWitnessPins([`http://a=w1=${KEY}`, `http://b=w2=${KEY}`])).toThrow(
      /w2: its key is already pinned for another witness/,
    );
  });

  it('refuses a CA for an unknown witness, a plain-HTTP one, twice, or a file that is no certificate', () => {
    const w = [`https://a=w1=${KEY}`, `http://b=w2=${OTHER}`];
    expect(() => parseWitnessPins(w, [`w3=${cert}`])).toThrow(
      /--witness-ca w3: expected the id of a witness/,
    );
    expect(() => parseWitnessPins(w, [`w2=${cert}`])).toThrow(
      /--witness-ca w2: the witness URL http:\/\/b\/ is not https/,
    );
    expect(() => parseWitnessPins(w, [`w1=${cert}`, `w1=${cert}`])).toThrow(/one CA file per witness/);
    const junk = join(tmp.path, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    expect(() => parseWitnessPins(w, [`w1=${junk}`])).toThrow(
      /--witness-ca .*junk\.pem: expected a readable PEM certificate/,
    );
    expect(() => parseWitnessPins(w, ['w1'])).toThrow(/--witness-ca "w1": expected ID=FILE/);
  });
});
