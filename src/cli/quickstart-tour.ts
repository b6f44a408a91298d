import { join } from 'node:path';
import type { z } from 'zod';
import { SvcError } from '../core/errors.js';
import type { ReceiptView } from '../api/receipt.js';
import type { DecisionResponse } from '../api/decision.js';
import { writeAtomically } from '../export/export-file.js';
import { exportLog } from '../export/log-export.js';
import { DEMO } from '../provisioning/demo-spec.js';
import { showKeys } from '../provisioning/signing-key.js';
import type { DataDir } from '../store/data-dir.js';
import { Keyring } from '../store/keyring.js';
import type { Store } from '../store/ports.js';
import { parseTrustedKey } from '../verifier/trusted-keys.js';
import { verifyFile } from '../verifier/verify-file.js';
import { decideApproval } from './approval-decision.js';
import { DaemonClient } from './daemon-client.js';
import { tourRequests, type TourRequest } from './quickstart-walkthrough.js';
import { counted } from './plural.js';

type Decision = z.output<typeof DecisionResponse>;

export interface TourContext {
  url: string;
  /** PEM of the certificate the daemon serves */
  ca: string;
  adminToken: string;
  agentToken: string;
  dir: DataDir;
  store: Store;
  /** one line of output */
  say: (line: string) => void;
}

/** What each step saw, for the caller (and the tests) to check. */
export interface TourResult {
  allowed: Decision;
  refused: { code: string; reason: string; remedy: string | undefined };
  deferred: Decision;
  approved: { approval_id: string; status: string };
  resumed: Decision;
  receipts: number;
  exported: { file: string; entry_count: number };
  verified: 'pass' | 'fail';
}

/**
 * `svc quickstart --tour`: the printed walk-through, run for real against the daemon just
 * started, over its TLS listener, with the demo's own tokens; each step says what it saw.
 */
export async function runTour(ctx: TourContext, run: string): Promise<TourResult> {
  const agent = new DaemonClient({ endpoint: ctx.url, token: ctx.agentToken, ca: ctx.ca });
  const admin = new DaemonClient({ endpoint: ctx.url, token: ctx.adminToken, ca: ctx.ca });
  const ask = (q: TourRequest) => agent.post<Decision>(`/v1/${q.route}`, q.body);
  const r = tourRequests(run);
  try {
    const allowed = await ask(r.read);
    ctx.say(
      `1. allowed   ${allowed.decision}: ${DEMO.agent} may read ${DEMO.readable} (grant ${allowed.grant?.grant_id ?? 'none'}, receipt ${allowed.receipt.sequence})`,
    );

    let refused: TourResult['refused'];
    try {
      await ask(r.tooMuch);
      throw new SvcError('internal', 'the tour expected the over-limit refund to be refused');
    } catch (err) {
      if (!(err instanceof SvcError) || err.kind !== 'forbidden') throw err;
      refused = { code: err.code, reason: err.reason, remedy: err.remedy };
    }
    ctx.say(`2. refused   ${refused.code}: ${refused.reason}`);
    ctx.say(`             remedy: ${refused.remedy ?? '(none)'}`);

    const deferred = await ask(r.refund);
    const approvalId = deferred.approval?.approval_id;
    if (deferred.decision !== 'deferred' || approvalId === undefined) {
      throw new SvcError('internal', `the tour expected the refund to be deferred, not ${deferred.decision}`);
    }
    ctx.say(`3. deferred  ${DEMO.irreversible} is irreversible: approval ${approvalId} waits for a human`);

    const decided = await decideApproval(
      admin,
      approvalId,
      'approve',
      'order 1042 checked (quickstart tour)',
    );
    ctx.say(
      `4. approved  ${DEMO.admin} approved ${approvalId}, as \`svc approvals approve ${approvalId}\` does`,
    );

    const resumed = await agent.post<Decision>('/v1/action/resume', r.refund.body);
    ctx.say(
      `5. resumed   ${resumed.decision}: the identical request, ${resumed.amount_usd} USD reserved on ${DEMO.task}`,
    );

    const receipts = await admin.get<{ items: ReceiptView[] }>('/v1/receipts', {
      task_id: DEMO.task,
      limit: 200,
    });
    const kinds = receipts.items.map((x) => `${x.kind}/${x.outcome}`).slice(-6);
    ctx.say(`6. receipts  ${receipts.items.length} on ${DEMO.task}, latest: ${kinds.join(', ')}`);

    const file = join(ctx.dir.root, 'tour-export.jsonl');
    const keyring = new Keyring(ctx.dir, ctx.store);
    const summary = await writeAtomically(file, (out) =>
      exportLog(ctx.store, keyring, DEMO.tenant, out, { now: () => new Date() }),
    );
    ctx.say(
      `7. exported  ${counted(summary.entry_count, 'entry', 'entries')} to ${file}, head signed by ${summary.key_id}`,
    );

    const { active } = await showKeys(ctx.store, DEMO.tenant);
    const report = await verifyFile(file, {
      publicKeys: [parseTrustedKey(active.public_key)],
      requireAnchors: false,
    });
    ctx.say(
      `8. verified  ${report.result} against the pinned key ${active.public_key} (svc verify ${file} --public-key …)`,
    );
    return {
      allowed,
      refused,
      deferred,
      approved: { approval_id: decided.approval.approval_id, status: decided.approval.status },
      resumed,
      receipts: receipts.items.length,
      exported: { file, entry_count: summary.entry_count },
      verified: report.result,
    };
  } finally {
    await agent.close();
    await admin.close();
  }
}
