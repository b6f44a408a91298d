// Export and verify of a large journal, each against sha256sum over the same file in the
// same run, and their peak memory (max RSS of the process, from /usr/bin/time).
// Targets: verify within 10x of sha256sum, its peak memory under 128 MiB; export no slower
// than verify.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bin, dist } from './harness.mjs';

const verifyBin = fileURLToPath(new URL('../../bin/svc-verify.js', import.meta.url));
const BATCH = 10_000;

/** `args` under /usr/bin/time: wall seconds and peak RSS in MiB. */
function timed(args, env) {
  const r = seconds(['/usr/bin/time', '-f', '%e %M', ...args], env);
  const [, maxRssKb] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { ...r, rss_mib: maxRssKb / 1024 };
}

function seconds(args, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(args[0], args.slice(1), { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { s: Number(process.hrtime.bigint() - t0) / 1e9, stdout: r.stdout, stderr: r.stderr };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A journal of `entries` decision rows, appended as the pipeline appends them, a head per 10,000. */
export async function buildLog(home, entries) {
  const { SqliteStore } = await import(dist('src/store/sqlite/store.js'));
  const { JournalWriter } = await import(dist('src/store/sqlite/journal.js'));
  const { DataDir } = await import(dist('src/store/data-dir.js'));
  const { Keyring } = await import(dist('src/store/keyring.js'));
  const store = SqliteStore.open(join(home, 'svc.db'));
  const journal = new JournalWriter(store.db);
  const keyring = new Keyring(new DataDir(home), store);
  // Random ids as the pipeline makes them, drawn a batch at a time: one randomBytes call per
  // id was a tenth of the build.
  let pool = Buffer.alloc(0);
  let used = 0;
  const id = (p) => `${p}_${pool.toString('hex', used, (used += 16))}`;
  for (let start = 1; start <= entries; start += BATCH) {
    const at = new Date(Date.UTC(2026, 0, 1) + start * 10).toISOString();
    pool = randomBytes(16 * 3 * BATCH);
    used = 0;
    store.db.transaction(() => {
      for (let i = start; i < Math.min(start + BATCH, entries + 1); i++) {
        const intentId = id('int');
        const receiptId = id('rcp');
        const allowed = i % 7 !== 0;
        journal.append(
          {
            tenantId: 'default',
            kind: 'decision',
            receiptId,
            taskId: 'bench-task',
            intentId,
            actorId: `agent-${i % 13}`,
            capability: i % 3 === 0 ? 'crm.contacts.write' : 'crm.contacts.read',
            tier: i % 4,
            allowed,
            grantId: allowed ? id('grt') : '',
            amountMicros: allowed ? BigInt(1 + (i % 5_000_000)) : 0n,
            occurredAt: at,
            record: {
              v: 1,
              kind: 'decision',
              intent_id: intentId,
              receipt_id: receiptId,
              outcome: allowed ? 'allowed' : 'refused',
            },
          },
          at,
        );
      }
    })();
    await store.anchors.signCurrent('default', await keyring.signer('default'), at);
  }
  const key = (await store.keys.active('default')).publicKey;
  await store.close();
  return key;
}

export async function evidenceBench(
  entries = Number(process.env.BENCH_ENTRIES ?? 1_000_000),
  runs = Number(process.env.BENCH_RUNS ?? 3),
) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-evidence-'));
  const env = { ...process.env, SVC_HOME: home };
  try {
    seconds([process.execPath, bin, 'init', '--yes', '--json'], env);
    const t0 = process.hrtime.bigint();
    const key = await buildLog(home, entries);
    const built = Number(process.hrtime.bigint() - t0) / 1e9;
    const file = join(home, 'export.jsonl');

    const exportArgs = [process.execPath, bin, 'export', '--tenant', 'default', '--out', file];
    const verifyArgs = [process.execPath, verifyBin, file, '--public-key', key, '--json'];
    // Export and verify back to back, `runs` times, so a neighbour's load falls on both alike.
    const exports = [];
    const verifies = [];
    for (let i = 0; i < runs; i++) {
      rmSync(file, { force: true });
      exports.push(timed(exportArgs, env));
      const verify = timed(verifyArgs, env);
      const report = JSON.parse(verify.stdout);
      if (report.result !== 'pass') throw new Error(`the benchmark export did not verify: ${report.summary}`);
      verifies.push(verify);
    }
    const size = statSync(file).size;
    seconds(['sha256sum', file]); // warm the page cache, as for every run after it
    const sha = median([0, 1, 2].map(() => seconds(['sha256sum', file]).s));
    const exportS = median(exports.map((e) => e.s));
    const verifyS = median(verifies.map((v) => v.s));
    return {
      entries,
      build_s: built,
      file_mb: size / 1e6,
      sha256sum_s: sha,
      runs,
      export_s: exportS,
      export_ratio: exportS / sha,
      export_peak_rss_mib: Math.max(...exports.map((e) => e.rss_mib)),
      verify_s: verifyS,
      verify_ratio: verifyS / sha,
      verify_peak_rss_mib: Math.max(...verifies.map((v) => v.rss_mib)),
      export_over_verify: median(exports.map((e, i) => e.s / verifies[i].s)),
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
