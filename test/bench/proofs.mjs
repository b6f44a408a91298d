// Proof cost and anchor cost at scale: inclusion and consistency proofs from the stored
// subtrees of a 1,000,000-entry journal (target under 10 ms each), and the cost of one
// anchor with one witness, excluding the network wait (target under 50 ms): sign the head,
// build the consistency proof from the witness's last head, record the cosignature.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, dist, root, waitFor } from './harness.mjs';

const BATCH = 10_000;
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

function appendBatch(store, journal, from, to) {
  // Random ids as the pipeline makes them, drawn once per batch (one call per id was a tenth of the build).
  const pool = randomBytes(16 * 3 * (to - from));
  let used = 0;
  const id = (p) => `${p}_${pool.toString('hex', used, (used += 16))}`;
  const at = new Date(Date.UTC(2026, 0, 1) + from * 10).toISOString();
  store.db.transaction(() => {
    for (let i = from; i < to; i++) {
      const intentId = id('int');
      const receiptId = id('rcp');
      journal.append(
        {
          tenantId: 'default',
          kind: 'decision',
          receiptId,
          taskId: 'bench-task',
          intentId,
          actorId: `agent-${i % 13}`,
          capability: 'crm.contacts.read',
          tier: i % 4,
          allowed: true,
          grantId: id('grt'),
          amountMicros: BigInt(1 + (i % 5_000_000)),
          occurredAt: at,
          record: { v: 1, kind: 'decision', intent_id: intentId, receipt_id: receiptId, outcome: 'allowed' },
        },
        at,
      );
    }
  })();
}

export async function proofsBench(entries = Number(process.env.BENCH_ENTRIES ?? 1_000_000)) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-proofs-'));
  const env = { ...process.env, SVC_HOME: home };
  let witness;
  try {
    const init = spawnSync(process.execPath, [bin, 'init', '--yes', '--json'], { env, encoding: 'utf8' });
    if (init.status !== 0) throw new Error(`svc init failed: ${init.stderr}`);
    const { SqliteStore } = await import(dist('src/store/sqlite/store.js'));
    const { JournalWriter } = await import(dist('src/store/sqlite/journal.js'));
    const { DataDir } = await import(dist('src/store/data-dir.js'));
    const { Keyring } = await import(dist('src/store/keyring.js'));
    const { AnchorAttestor } = await import(dist('src/daemon/attest/anchor-attestor.js'));
    const http = await import(dist('src/daemon/attest/witness-client.js'));
    const store = SqliteStore.open(join(home, 'svc.db'));
    const journal = new JournalWriter(store.db);
    const keyring = new Keyring(new DataDir(home), store);

    const t0 = process.hrtime.bigint();
    for (let start = 1; start <= entries; start += BATCH)
      appendBatch(store, journal, start, Math.min(start + BATCH, entries + 1));
    const buildS = ms(t0) / 1000;
    const signer = await keyring.signer('default');
    const { anchor: first } = await store.anchors.signCurrent('default', signer, new Date().toISOString());

    // Proofs at the full size: random leaves, random older sizes.
    const inclusion = [];
    const consistency = [];
    for (let i = 0; i < 300; i++) {
      const seq = 1 + Math.floor(Math.random() * entries);
      let t = process.hrtime.bigint();
      await store.proofs.inclusion('default', seq, entries);
      inclusion.push(ms(t));
      t = process.hrtime.bigint();
      await store.proofs.consistency('default', seq, entries);
      consistency.push(ms(t));
    }

    // One witness (the built binary) on loopback, following this log from the first head.
    const key = (await store.keys.active('default')).publicKey;
    const wkey = join(home, 'witness.pem');
    const wpin = JSON.parse(
      spawnSync(process.execPath, [bin, 'witness', 'key', '--key-file', wkey, '--json'], {
        env,
        encoding: 'utf8',
      }).stdout,
    );
    witness = spawn(
      process.execPath,
      [
        bin,
        'witness',
        'serve',
        '--listen',
        '127.0.0.1:0',
        '--allow-insecure-http',
        '--key-file',
        wkey,
        '--state',
        join(home, 'w.json'),
        '--log-key',
        `default=${key}`,
      ],
      { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const url = await waitFor(witness, /listening on (\S+)/);
    const quiet = { info: () => undefined, warn: (o, m) => console.error(m, o) };
    const { parseWitnessPins } = await import(dist('src/daemon/attest/witness-pin.js'));
    const [pin] = parseWitnessPins([`${url}=${wpin.witness_id}=${wpin.public_key}`]);
    const attestor = new AnchorAttestor(store, { witnesses: [pin], log: quiet });
    await attestor.attest(first);
    await attestor.close();
    const client = new http.WitnessClient(pin);

    // Anchors: 100 new entries each, then the head, the proof, the cosignature, the records.
    const total = [];
    const local = [];
    for (let round = 0; round < 20; round++) {
      const size = entries + (round + 1) * 100;
      appendBatch(store, journal, size - 99, size + 1);
      const start = process.hrtime.bigint();
      const { anchor } = await store.anchors.signCurrent('default', signer, new Date().toISOString());
      let wait = 0;
      let t = process.hrtime.bigint();
      const last = await client.lastSize(anchor.head.log_id);
      wait += ms(t);
      const proof = await store.proofs.consistency('default', last, anchor.head.tree_size);
      t = process.hrtime.bigint();
      const cosignature = await client.cosign(anchor.head, proof);
      wait += ms(t);
      await store.anchors.recordWitness('default', anchor.head.tree_size, cosignature);
      await store.anchors.recordTimestamp('default', anchor.head.tree_size, {
        authority: 'noop',
        digest: '00'.repeat(32),
        time: anchor.head.signed_at,
        noop: true,
      });
      const all = ms(start);
      total.push(all);
      local.push(all - wait);
    }
    await client.close();
    await store.close();
    return {
      entries,
      build_s: buildS,
      inclusion_p50_ms: pct(inclusion, 0.5),
      inclusion_p99_ms: pct(inclusion, 0.99),
      consistency_p50_ms: pct(consistency, 0.5),
      consistency_p99_ms: pct(consistency, 0.99),
      anchor_local_p50_ms: pct(local, 0.5),
      anchor_local_max_ms: Math.max(...local),
      anchor_total_p50_ms: pct(total, 0.5),
    };
  } finally {
    witness?.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  }
}
