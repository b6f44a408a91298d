import { Flags } from '@oclif/core';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { replayJson, type ReplayJson } from '../../src/api/policy-difference-view.js';
import { renderDifference } from '../../src/cli/difference-render.js';
import { durationFlag } from '../../src/cli/duration-flag.js';
import { counted } from '../../src/cli/plural.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';
import { avoidJsToWasmInliningCrash } from '../../src/daemon/v8-workaround.js';
import type { ReplayResult } from '../../src/policy/replay.js';
import { replayPolicy } from '../../src/provisioning/policy-replay.js';
import { readTextFile } from '../../src/provisioning/text-file.js';
import { openRecordedDecisions } from '../../src/store/open.js';

const DAY = 24 * 60 * 60_000;

export default class PolicyReplay extends DataDirCommand {
  static override summary =
    "Re-evaluate a tenant's recorded decisions against a candidate policy, with the inputs they were decided with, and report what it would change. Read-only.";
  static override description =
    'Each decision is put to the candidate with the actor’s and capability’s attributes as recorded when it was decided, and compared with the verdict the policy in force gave then. Decisions recorded before inputs were recorded, and those refused before the policy step, are counted and skipped. Opens the store without writing: safe while the daemon runs, on a backup (--backup) and on PostgreSQL (--store). The candidate is validated first (exit 3 when it does not validate).';
  static override examples = [
    '<%= config.bin %> policy replay --tenant acme --candidate candidate.cedar',
    '<%= config.bin %> policy replay --tenant acme --candidate candidate.cedar --since 7d --json',
    '<%= config.bin %> policy replay --tenant acme --candidate candidate.cedar --backup backup/svc.db',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    candidate: Flags.string({ summary: 'The candidate policy set, in Cedar syntax.', required: true }),
    since: durationFlag({ minMs: 1000, maxMs: 3650 * DAY })({
      summary: 'Only decisions of the last DURATION (90d, 12h, 30m).',
      exclusive: ['from', 'to'],
    }),
    from: Flags.integer({ summary: 'Only decisions from this journal sequence on.', min: 1 }),
    to: Flags.integer({ summary: 'Only decisions up to this journal sequence.', min: 1 }),
    task: Flags.string({ summary: "Only this task's decisions." }),
    backup: Flags.string({
      summary: 'Read a backup’s database file (svc store backup) instead of the data dir’s store.',
      exclusive: ['store'],
    }),
  };
  static override enableJsonFlag = true;

  async run(): Promise<ReplayJson> {
    const { flags } = await this.parse(PolicyReplay);
    // A replay is a hot loop over the policy engine, as the daemon's decisions are.
    avoidJsToWasmInliningCrash();
    const text = readTextFile('candidate', flags.candidate);
    const recorded = await openRecordedDecisions(flags.backup ?? this.dataDir(flags).store);
    let result: ReplayResult;
    try {
      result = await replayPolicy(recorded, {
        tenantId: flags.tenant,
        text,
        source: flags.candidate,
        range: {
          ...(flags.from !== undefined ? { fromSeq: flags.from } : {}),
          ...(flags.to !== undefined ? { toSeq: flags.to } : {}),
          ...(flags.since !== undefined ? { since: new Date(Date.now() - flags.since).toISOString() } : {}),
          ...(flags.task !== undefined ? { taskId: flags.task } : {}),
        },
      });
    } finally {
      await recorded.close();
    }
    const { counts: c, report } = result;
    this.show(() => {
      const versions = result.versions.length === 0 ? 'none' : result.versions.join(', ');
      const skipped = [
        c.unrecorded > 0 ? `${c.unrecorded} decided before inputs were recorded` : '',
        c.beforePolicy > 0 ? `${c.beforePolicy} refused before the policy step` : '',
        c.unreadable > 0 ? `${c.unreadable} with unreadable inputs` : '',
      ].filter((s) => s !== '');
      const lines = [
        `Replayed ${counted(c.replayed, 'decision', 'decisions')} of tenant ${flags.tenant} against ${flags.candidate}` +
          (result.range
            ? ` (journal ${result.range.from} to ${result.range.to}, policy versions ${versions})`
            : ''),
      ];
      if (skipped.length > 0) lines.push(`Skipped: ${skipped.join(', ')}.`);
      return `${lines.join('\n')}\n${renderDifference(report)}`.trimEnd();
    });
    return replayJson(flags.tenant, flags.candidate, result);
  }
}
