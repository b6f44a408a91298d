// Does an unknown token id answer faster than a known (and cached) id with a wrong secret? A difference
// lets an attacker enumerate token ids. Both paths are timed in one process, interleaved, on
// the real SQLite store, and compared by their medians.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dist } from './harness.mjs';

const { initDataDir } = await import(dist('src/provisioning/init.js'));
const { DataDir } = await import(dist('src/store/data-dir.js'));
const { SqliteStore } = await import(dist('src/store/sqlite/store.js'));
const { authenticator } = await import(dist('src/http/auth.js'));

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function tokenTiming({ rounds = 20_000 } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-auth-'));
  try {
    const init = await initDataDir(home, { tenantId: 'acme', adminId: 'alice', now: new Date() });
    const store = SqliteStore.open(new DataDir(home).database);
    const auth = authenticator(store, 'token', () => new Date());
    const [, id] = /^svct_([0-9a-f]{16})_/.exec(init.admin_token);
    const wrongSecret = `svct_${id}_${'A'.repeat(43)}`;
    const unknownId = `svct_${'0123456789abcdef'}_${'A'.repeat(43)}`;
    const request = (token) => ({ headers: { authorization: `Bearer ${token}` } });
    const once = async (token) => {
      const t0 = process.hrtime.bigint();
      try {
        await auth(request(token));
      } catch {
        // both are refused; only the time matters here
      }
      return Number(process.hrtime.bigint() - t0) / 1000;
    };
    // The known id is in the daemon's verified-token cache (its right secret was used), the
    // case where a shortcut for cached ids would show first.
    await auth(request(init.admin_token));
    for (let i = 0; i < 2_000; i++) await once(i % 2 ? wrongSecret : unknownId); // warm up
    const known = [];
    const unknown = [];
    for (let i = 0; i < rounds; i++) {
      if (i % 2) known.push(await once(wrongSecret));
      else unknown.push(await once(unknownId));
    }
    await store.close();
    return { known_wrong_secret_us: median(known), unknown_id_us: median(unknown) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
