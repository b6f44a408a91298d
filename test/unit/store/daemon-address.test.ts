import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  clientHost,
  daemonAddressFile,
  readDaemonAddress,
  selfSignedCertificate,
  writeDaemonAddress,
  type DaemonAddress,
} from '../../../src/store/daemon-address.js';
import { DataDir } from '../../../src/store/data-dir.js';
import { createDeploymentCertificate } from '../../../src/tls/certificate.js';
import { tmpDir } from '../../helpers/tmp.js';

describe('the daemon address a data dir records', () => {
  const tmp = tmpDir('svc-addr-');
  afterAll(() => tmp.cleanup());
  const dir = new DataDir(tmp.path);

  it('reaches a wildcard listener on loopback and brackets IPv6', () => {
    expect(clientHost('0.0.0.0')).toBe('127.0.0.1');
    expect(clientHost('::')).toBe('[::1]');
    expect(clientHost('::1')).toBe('[::1]');
    expect(clientHost('localhost')).toBe('localhost');
  });

  it('round-trips, and ignores a file that is not one it wrote', () => {
    expect(readDaemonAddress(dir)).toBeUndefined();
    const a: DaemonAddress = {
      url: 'https://127.0.0.1:8090',
      tls: true,
      mutual_tls: false,
      ca_cert: '/d/tls/deployment-cert.pem',
      pid: 42,
      started_at: '2026-01-01T00:00:00.000Z',
    };
    writeDaemonAddress(dir, a);
    expect(readDaemonAddress(dir)).toEqual(a);
    writeFileSync(daemonAddressFile(dir), '{"url": "ftp://x", "tls": true}');
    expect(readDaemonAddress(dir)).toBeUndefined();
    writeFileSync(daemonAddressFile(dir), 'not json');
    expect(readDaemonAddress(dir)).toBeUndefined();
  });

  it('trusts a self-signed certificate as its own anchor, and nothing unreadable', async () => {
    const cert = await createDeploymentCertificate({ now: new Date() });
    const file = join(tmp.path, 'cert.pem');
    writeFileSync(file, cert.certPem);
    expect(selfSignedCertificate(file)).toBe(true);
    expect(selfSignedCertificate(join(tmp.path, 'missing.pem'))).toBe(false);
  });
});
