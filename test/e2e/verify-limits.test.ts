import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const VERIFY_BIN = fileURLToPath(new URL('../../bin/svc-verify.js', import.meta.url));
const KEY = readFileSync(join(ROOT, 'test/vectors/svc-export/public-key.b64'), 'utf8').trim();
/** The verifier's memory target (README, Performance). Memory is not time: asserting it is sound. */
const MEMORY_TARGET_KIB = 128 * 1024;
// Preloaded into the child: its own peak resident set, written last on stderr.
const REPORT_RSS = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\nmax_rss_kib='+process.resourceUsage().maxRSS+'\\n'))`;

interface Run {
  code: number | null;
  json: { result: string; findings: { code: string; line: number; message: string }[] };
  maxRssKib: number;
}

function verify(file: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      // GC on the main thread: under a loaded suite, starved concurrent GC threads let the heap
      // run ahead of what the verifier holds, and the peak would measure the machine's load.
      ['--single-threaded-gc', '--import', REPORT_RSS, VERIFY_BIN, file, '--public-key', KEY, '--json'],
      {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const rss = /max_rss_kib=(\d+)/.exec(stderr);
      if (!rss) return reject(new Error(`no RSS report; stderr: ${stderr.slice(0, 500)}`));
      resolve({ code, json: JSON.parse(stdout) as Run['json'], maxRssKib: Number(rss[1]) });
    });
  });
}

describe('svc-verify on deeply nested lines (built binary)', () => {
  const tmp = tmpDir('svc-verify-limits-');
  afterAll(() => tmp.cleanup());
  const vector = readFileSync(join(ROOT, 'test/vectors/svc-export/export.jsonl'), 'utf8')
    .trimEnd()
    .split('\n');

  it.each([
    ['5,000 deep inside an object', 5_000, (d: number) => `{"a":${'['.repeat(d)}${']'.repeat(d)}}`],
    ['500,000 deep, a 1 MB line', 500_000, (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`],
  ])('%s: a finding (exit 1), not an internal error, under the memory target', async (_what, depth, line) => {
    const file = join(tmp.path, `deep-${depth}.jsonl`);
    writeFileSync(file, [vector[0], line(depth), ...vector.slice(1)].map((l) => l + '\n').join(''));
    const run = await verify(file);
    expect(run.code).toBe(1);
    expect(run.json.result).toBe('fail');
    expect(run.json.findings).toEqual([
      { code: 'nesting_too_deep', line: 2, message: expect.stringMatching(/more than 32 deep/) },
    ]);
    expect(run.maxRssKib).toBeLessThan(MEMORY_TARGET_KIB);
  });
});
