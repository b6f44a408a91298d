import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';

function quickstart(
  dataDir: string,
): Promise<{ out: () => string; stop: () => Promise<number | null>; ready: Promise<void> }> {
  const child = spawn(
    process.execPath,
    [BIN, 'quickstart', '--data-dir', dataDir, '--listen', '127.0.0.1:0'],
    {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const exited = new Promise<number | null>((r) => child.on('close', r));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Press Ctrl-C to stop.')) resolve();
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((c) => reject(new Error(`quickstart exited ${c}: ${out}`)));
  });
  return Promise.resolve({ out: () => out, ready, stop: () => (child.kill('SIGINT'), exited) });
}

describe('svc quickstart', () => {
  const tmp = tmpDir('svc-qs-');
  afterAll(() => tmp.cleanup());

  it('initialises a demo data dir once, serves TLS, prints a working first request, and stops on Ctrl-C', async () => {
    const dataDir = join(tmp.path, '.svc');
    for (const run of [1, 2]) {
      const qs = await quickstart(dataDir);
      await qs.ready;
      const out = qs.out();
      expect(out).toMatch(run === 1 ? /new data dir/ : /existing data dir/);
      expect(out.includes('admin token')).toBe(run === 1);
      const url = /daemon\s+(https:\/\/\S+)/.exec(out)![1]!;
      const caFile = /CA file\s+(\S+)/.exec(out)![1]!;
      const token = /agent token (svct_\S+)/.exec(out)![1]!;
      expect(out).toContain(
        `curl --cacert "$SVC_CA_CERT" -H "Authorization: Bearer $SVC_TOKEN" "$SVC_ENDPOINT/v1/capabilities"`,
      );
      const { readFileSync } = await import('node:fs');
      const r = await call(`${url}/v1/capabilities`, {
        ca: readFileSync(caFile),
        headers: { authorization: `Bearer ${token}` },
      });
      expect(r.body).toEqual({ tenant_id: 'demo', actor_id: 'demo-agent', capabilities: [] });
      expect(await qs.stop()).toBe(0);
    }
  });
});
