import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cpuSince, mainThreadCpu, perDecisionUs } from '../../bench/thread-cpu.mjs';

/**
 * A child node process that spins its main thread until it has used `ms` of CPU (not of wall
 * time, so a loaded machine cannot shorten the spin), then waits to be killed.
 */
function child(ms: number) {
  const p = spawn(
    process.execPath,
    [
      '-e',
      `const t0 = process.cpuUsage(); for (;;) { const u = process.cpuUsage(t0); if (u.user + u.system >= ${ms} * 1000) break; } console.log('done'); setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const done = new Promise<void>((resolve) => p.stdout.once('data', () => resolve()));
  return { p, done };
}

describe.runIf(process.platform === 'linux')('the bench’s main-thread CPU reader', () => {
  it('counts the CPU a process’s main thread spent spinning, and none while it waits', async () => {
    const busy = child(400);
    try {
      const before = mainThreadCpu(busy.p.pid!);
      expect(before).toBeTypeOf('number');
      await busy.done;
      const spun = cpuSince(before, mainThreadCpu(busy.p.pid!))!;
      // Ticks are 10 ms; the spin is 400 ms of CPU, nearly all of it the main thread's.
      expect(spun).toBeGreaterThanOrEqual(0.3);
      const idle = mainThreadCpu(busy.p.pid!)!;
      await new Promise((r) => setTimeout(r, 300));
      expect(cpuSince(idle, mainThreadCpu(busy.p.pid!))!).toBeLessThan(0.05);
    } finally {
      busy.p.kill();
    }
  });

  it('reads nothing for a process that does not exist, and spreads CPU over decisions', () => {
    expect(mainThreadCpu(2 ** 22 + 12345)).toBeUndefined();
    expect(cpuSince(undefined, 1)).toBeUndefined();
    expect(perDecisionUs(undefined, 10)).toBeUndefined();
    expect(perDecisionUs(0.5, 2500)).toBe(200);
    expect(perDecisionUs(0.5, 0)).toBeUndefined();
  });
});
