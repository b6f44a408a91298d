import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportSchema } from '../../src/evidence/schema.js';
import { ROOT, runJson, runSvc, startDaemonProcess, type RunResult } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';

const VERIFY_BIN = fileURLToPath(new URL('../../bin/svc-verify.js', import.meta.url));

function runVerifyBin(args: string[]): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VERIFY_BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Export and verify through the built binaries, on a log a running daemon wrote and anchored. */
describe('svc export, svc verify and svc-verify (built binary)', () => {
  const tmp = tmpDir('svc-evidence-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  const file = join(tmp.path, 'acme.jsonl');
  let key: string;

  beforeAll(async () => {
    await runJson(['init', ...t, '--admin', 'alice'], env);
    await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
    await runJson(
      [
        'capability',
        'register',
        ...t,
        '--name',
        'crm.read',
        '--actions',
        'read',
        '--tier',
        '1',
        '--cost-usd',
        '1.5',
      ],
      env,
    );
    await runJson(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'crm.read'], env);
    const policy = join(tmp.path, 'policy.cedar');
    writeFileSync(policy, 'permit (principal, action, resource);\n');
    await runJson(['policy', 'set', ...t, '--file', policy], env);
    await runJson(
      ['task', 'create', ...t, '--id', 't1', '--sponsor', 'alice', '--budget-usd', '100', '--actor', 'bot'],
      env,
    );
    const bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    key = (await runJson<{ public_key: string }>(['key', 'show', ...t], env)).public_key;

    const daemon = await startDaemonProcess(
      ['--allow-insecure-http', '--anchor-entries', '3', '--anchor-interval', '1h'],
      env,
    );
    try {
      const decide = async (i: number) => {
        const r = await call(`${daemon.url}/v1/action`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bot}` },
          body: {
            tenant_id: 'acme',
            actor_id: 'bot',
            capability: 'crm.read',
            action: 'read',
            task_id: 't1',
            effect_key_step: `s${i}`,
          },
        });
        expect(r.status).toBe(200);
      };
      for (let i = 1; i <= 3; i++) await decide(i);
      await new Promise((r) => setTimeout(r, 1500)); // the schedule looks every second: anchored at 3
      for (let i = 4; i <= 5; i++) await decide(i);
    } finally {
      expect(await daemon.stop()).toBe(0); // a clean stop anchors the rest
    }
  });
  afterAll(() => tmp.cleanup());

  it('exports the log with the daemon’s anchors and a fresh head', async () => {
    const summary = await runJson<Record<string, unknown>>(['export', ...t, '--out', file], env);
    expect(summary).toMatchObject({
      tenant_id: 'acme',
      entry_count: 5,
      anchor_count: 2,
      pre_anchor: false,
      key_ids: [summary.key_id],
      file,
    });
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; head?: { tree_size: number } });
    // The schedule's anchor at 3 and the clean stop's at 5, each after its entry.
    expect(lines.map((l) => (l.type === 'anchor' ? `a${l.head!.tree_size}` : l.type[0]))).toEqual([
      'h',
      'e',
      'e',
      'e',
      'a3',
      'e',
      'e',
      'a5',
    ]);
  });

  it('verify passes (exit 0) with the key as base64, hex, ed25519:-prefixed or a PEM file, under both names', async () => {
    const hex = Buffer.from(key, 'base64').toString('hex');
    const pem = join(tmp.path, 'acme.pub.pem');
    writeFileSync(pem, (await runSvc(['key', 'show', ...t, '--pem'], env)).stdout);
    for (const k of [key, hex, `ed25519:${hex}`, `ed25519:${key}`, pem]) {
      const r = await runSvc(['verify', file, '--public-key', k]);
      expect(r.code, `${k}: ${r.stderr}`).toBe(0);
    }
    const human = await runSvc(['verify', file, '--public-key', key]);
    expect(human.stdout).toMatch(/^PASS: pass$/m);
    expect(human.stdout).toMatch(/What a pass establishes: A pass establishes integrity/);
    expect(human.stdout).toMatch(
      /complete capture: an action that never went through the daemon leaves no entry/,
    );
    const bin = await runVerifyBin([file, '--public-key', key, '--json']);
    expect(bin.code).toBe(0);
    const report = JSON.parse(bin.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      result: 'pass',
      findings: [],
      findings_omitted: 0,
      counts: { entries: 5, redacted_entries: 0, redaction_ranges: 0 },
      trusted_key_ids: [expect.stringMatching(/^ed25519-/)],
      missing_key_ids: [],
      does_not_establish: expect.any(Array),
    });
    // snake_case all the way down, like every other --json result.
    const keysOf = (v: unknown): string[] =>
      v !== null && typeof v === 'object'
        ? Object.entries(v).flatMap(([k, x]) => [...(Array.isArray(v) ? [] : [k]), ...keysOf(x)])
        : [];
    expect(keysOf(report).filter((k) => /[A-Z]/.test(k))).toEqual([]);
  });

  it('a tampered export fails (exit 1), listing every finding with its line and code', async () => {
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    lines[2] = lines[2]!.replace('"amount_usd":1.5', '"amount_usd":0.01');
    const bad = join(tmp.path, 'bad.jsonl');
    writeFileSync(bad, lines.join('\n') + '\n');
    const human = await runSvc(['verify', bad, '--public-key', key]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^FAIL: fail \(\d+ findings\)$/m);
    expect(human.stdout).toMatch(/^ {2}line 3: leaf_mismatch: leaf of entry 2 is not H\(preimage\)$/m);
    const json = await runVerifyBin([bad, '--public-key', key, '--json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as {
      result: string;
      findings: { code: string; line: number; message: string }[];
    };
    expect(report.result).toBe('fail');
    expect(report.findings).toContainEqual({ code: 'leaf_mismatch', line: 3, message: expect.any(String) });
    const strict = await runSvc([
      'verify',
      join(ROOT, 'test/vectors/tamper/cases/pre-anchor-required.jsonl'),
      '--require-anchors',
      ...trustedCorpusKeys(),
    ]);
    expect(strict.code).toBe(1);
  });

  it('could not run (exit 2): no trusted key, an unreadable file, a bad key or flag', async () => {
    const none = await runVerifyBin([file]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no trusted public key given/);
    expect(none.stderr).toMatch(/embedded in the export cannot establish trust/);
    const noneJson = await runSvc(['verify', file, '--json']);
    expect(noneJson.code).toBe(2);
    expect(JSON.parse(noneJson.stdout)).toMatchObject({ error: { code: 'usage' } });
    mkdirSync(join(tmp.path, 'dir'));
    for (const args of [
      [join(tmp.path, 'missing.jsonl'), '--public-key', key],
      [join(tmp.path, 'dir'), '--public-key', key],
      [file, '--public-key', 'not-a-key'],
      [file, '--public-key', 'AAAA'],
      [file, '--public-key', key, '--bogus'],
      ['--public-key', key],
    ]) {
      const r = await runSvc(['verify', ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(2);
    }
  });

  it('export to stdout, export schema, and journal redact with its exit codes', async () => {
    const out = await runSvc(['export', ...t], env);
    expect(out.code).toBe(0);
    const stdoutFile = join(tmp.path, 'stdout.jsonl');
    writeFileSync(stdoutFile, out.stdout);
    expect((await runSvc(['verify', stdoutFile, '--public-key', key])).code).toBe(0);
    expect((await runSvc(['export', ...t, '--json'], env)).code).toBe(2); // the export itself owns stdout

    const schema = await runSvc(['export', 'schema']);
    expect(JSON.parse(schema.stdout)).toEqual(exportSchema);

    const redacted = await runJson<Record<string, unknown>>(
      [
        'journal',
        'redact',
        ...t,
        '--from',
        '2',
        '--to',
        '3',
        '--reason',
        'retention',
        '--authorised-by',
        'alice',
      ],
      env,
    );
    expect(redacted).toMatchObject({
      tenant_id: 'acme',
      sequence: 6,
      tombstone: { from_sequence: 2, to_sequence: 3 },
    });
    const redact = (from: string, to: string, by = 'alice') =>
      runSvc(
        ['journal', 'redact', ...t, '--from', from, '--to', to, '--reason', 'x', '--authorised-by', by],
        env,
      );
    expect((await redact('3', '4')).code).toBe(4);
    expect((await redact('4', '2')).code).toBe(2);
    expect((await redact('4', '4', 'bot')).code).toBe(2);
    const one = await redact('4', '4');
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^Redacted entries 4\.\.4 of tenant acme \(1 entry\); redaction record 7 /m);
    expect((await runSvc(['export', ...t, '--out', file], env)).code).toBe(0);
    const after = await runSvc(['verify', file, '--public-key', key]);
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/^PASS: pass with redactions \(3 entries in 2 ranges\)$/m);
  });

  it('the daemon refuses an anchor interval out of range', async () => {
    const r = await runSvc(
      ['daemon', 'start', '--allow-insecure-http', '--listen', '127.0.0.1:0', '--anchor-interval', '0s'],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/anchor-interval/);
  });
});

function trustedCorpusKeys(): string[] {
  const context = JSON.parse(readFileSync(join(ROOT, 'test/vectors/tamper/context.json'), 'utf8')) as {
    trusted_public_keys: string[];
  };
  return context.trusted_public_keys.flatMap((k) => ['--public-key', k]);
}
