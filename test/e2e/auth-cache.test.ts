import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The daemon caches verified tokens; the CLI revokes by writing the data dir from another
 * process. The next request after the revocation must be refused however often the token
 * was served from the cache before, and other callers keep their access.
 */
describe('token cache against the CLI in another process (built binary)', () => {
  const tmp = tmpDir('svc-e2e-authcache-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  let daemon: DaemonProcess;

  beforeAll(async () => {
    await runJson(['init', '--tenant', 'acme', '--admin', 'alice'], env);
    await runJson(
      ['actor', 'add', '--tenant', 'acme', '--id', 'bot', '--kind', 'agent', '--manager', 'alice'],
      env,
    );
    daemon = await startDaemonProcess(['--allow-insecure-http'], env);
  });
  afterAll(async () => {
    await daemon?.stop();
    tmp.cleanup();
  });

  const caps = (token: string) =>
    call(`${daemon.url}/v1/capabilities`, { headers: { authorization: `Bearer ${token}` } });
  const issue = (...extra: string[]) =>
    runJson<{ token: string; token_id: string }>(
      ['token', 'issue', '--tenant', 'acme', '--actor', 'bot', ...extra],
      env,
    );

  it('a CLI revocation refuses the very next request; another token keeps working', async () => {
    const doomed = await issue();
    const kept = await issue();
    for (let i = 0; i < 20; i++) {
      expect((await caps(doomed.token)).status).toBe(200);
      expect((await caps(kept.token)).status).toBe(200);
    }
    await runJson(['token', 'revoke', '--tenant', 'acme', '--id', doomed.token_id], env);
    const refused = await caps(doomed.token);
    expect(refused.status).toBe(401);
    expect(refused.body.reason).toBe('the token is revoked');
    expect((await caps(kept.token)).status).toBe(200);
    expect((await caps(doomed.token)).status).toBe(401);
  });

  it('a cached token is refused once it expires', async () => {
    const brief = await issue('--ttl', '2s');
    const issuedAt = Date.now();
    expect((await caps(brief.token)).status).toBe(200);
    expect((await caps(brief.token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, issuedAt + 2_100 - Date.now())));
    const expired = await caps(brief.token);
    expect(expired.status).toBe(401);
    expect(expired.body.reason).toBe('the token is expired');
  });
});
