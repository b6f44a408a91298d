import { cjson } from '../../evidence/cjson.js';
import type { Appended, JournalAppend } from '../../evidence/journal-append.js';
import type { Actor } from '../actor.js';
import { newId } from '../ids.js';
import { formatUsd, type Micros } from '../money.js';
import { APPROVAL_TTL_MS } from './decide.js';
import type { Outcome } from './outcome.js';
import { recordedInputs, type RecordedInputs } from './recorded-inputs.js';
import { requestIdentity, type AmountSource, type DecisionRequest } from './request.js';
import type { PendingExecution, Sealed, SealedReceipt } from './sealed.js';
import type { BrokeredTarget } from './surface.js';

/** How long a minted grant stays redeemable. */
export const GRANT_TTL_MS = 5 * 60_000;

/** The outcomes that are sealed in the journal (a standing deferral is answered, not sealed). */
export type SealedOutcome = Extract<Outcome, { kind: 'refused' | 'deferred' | 'allowed' }>;

/** The kinds of id a decision mints. */
export type DecisionIdKind = 'int' | 'rcp' | 'adm' | 'grt' | 'exe' | 'apr';

/** Where ids come from: `newId` in production, a deterministic source in tests. */
export type IdSource = (prefix: DecisionIdKind) => string;

/** The `intents` row, column for column (inserted by a new request, updated by a resume). */
export interface IntentRow {
  tenantId: string;
  id: string;
  taskId: string;
  step: string;
  actorId: string;
  capability: string;
  action: string;
  route: string;
  requestDigest: string;
  /** JSON text of the request's identity fields */
  request: string;
  outcome: SealedOutcome['kind'];
  code: string | null;
  reason: string | null;
  amountMicros: Micros;
  grantId: string | null;
  approvalId: string | null;
  receiptId: string;
  /** created_at on insert, updated_at always */
  at: string;
}

/**
 * A new allow claims the effect key and a new deferral holds it (`insert`: no key may stand);
 * a resume's allow turns its own deferral into a claim and a refused resume frees it. Both
 * of those name the key as they expect to find it (`expect`), and must change exactly that
 * row (a guarded write).
 */
export type EffectKeyWrite =
  | {
      op: 'insert';
      taskId: string;
      step: string;
      state: 'claimed' | 'deferred';
      intentId: string;
      requestDigest: string;
      at: string;
    }
  | { op: 'claim'; taskId: string; step: string; at: string; expect: HeldDeferral }
  | { op: 'drop'; taskId: string; step: string; expect: HeldDeferral };

/** The effect key as a resume holds it: deferred, by the resumed intent. */
export interface HeldDeferral {
  state: 'deferred';
  intentId: string;
}

export interface AdmissionRow {
  id: string;
  rootId: string;
  taskId: string;
  intentId: string;
  actorId: string;
  capability: string;
  amountMicros: Micros;
  createdAt: string;
}

export interface GrantRow {
  id: string;
  intentId: string;
  actorId: string;
  capability: string;
  taskId: string;
  expiresAt: string;
  createdAt: string;
}

/** A pending execution row; the adapter adds its own owner (pid, instance). */
export interface ExecutionRow {
  id: string;
  intentId: string;
  taskId: string;
  step: string;
  actorId: string;
  capability: string;
  action: string;
  tier: number;
  surfaceId: string;
  operation: string;
  credentialRef: string;
  createdAt: string;
}

export interface OpenApprovalRow {
  id: string;
  intentId: string;
  taskId: string;
  step: string;
  capability: string;
  action: string;
  requesterId: string;
  amountMicros: Micros;
  amountSource: AmountSource;
  requestDigest: string;
  /** CJSON of the body the digest binds (params included): what the approver is shown */
  request: string;
  expiresAt: string;
  createdAt: string;
}

/**
 * Everything a sealed decision changes, computed by core and applied by a store adapter in
 * the transaction that read the state `decide` judged. Order of application: reserve,
 * consumeApproval, admission, grant, execution, openApproval, intent, effectKey, journal.
 * `reserve` and `consumeApproval` are conditional updates that must change exactly one row
 * (the adapter throws otherwise: the decision was made on state that no longer holds).
 */
export interface DecisionWrites {
  tenantId: string;
  at: string;
  intentId: string;
  receiptId: string;
  /** `tasks.reserved_micros += amountMicros` where it stays within `budget_micros` */
  reserve?: { taskId: string; amountMicros: Micros };
  /** `approvals.status` approved -> consumed */
  consumeApproval?: { approvalId: string; consumedAt: string };
  admission?: AdmissionRow;
  grant?: GrantRow;
  execution?: ExecutionRow;
  openApproval?: OpenApprovalRow;
  intent: IntentRow;
  /** 'insert' for a new request, 'update' for a resume of the intent that holds the key */
  intentWrite: 'insert' | 'update';
  effectKey?: EffectKeyWrite;
  journal: JournalAppend;
  /** what the policy step was evaluated with, where the decision reached it (replay) */
  inputs: RecordedInputs | undefined;
  /** the reply, less what only the append knows (sequence, record hash) */
  reply: Omit<Extract<Sealed, { kind: 'sealed' }>, 'receipt'> & {
    receipt: Omit<SealedReceipt, 'sequence' | 'recordHash'>;
  };
}

export interface DecisionPlanInput {
  req: DecisionRequest;
  caller: Actor;
  mode: 'new' | 'resume';
  outcome: SealedOutcome;
  /** the new intent's id, or on resume the id of the intent holding the key */
  intentId: string;
  now: Date;
  /** the task root carrying execution constraints: an allow is admitted against it */
  constraintsRoot?: string;
  custody?: string;
  /** an allowed brokered decision's target (from `judgeSurface`) */
  brokered?: BrokeredTarget;
  /** the version of the policy that answered the policy step (0: none installed) */
  policyVersion?: number;
}

/** What one sealed outcome changes and the journal record that seals it. Pure. */
export function planDecision(p: DecisionPlanInput, ids: IdSource = newId): DecisionWrites {
  const { req, caller, mode, outcome: o, intentId, now } = p;
  const at = now.toISOString();
  const receiptId = ids('rcp');
  const t = req.tenantId;
  const w: Partial<DecisionWrites> = {};
  let grant: { grantId: string; expiresAt: string } | undefined;
  let approval: { approvalId: string; status: string; expiresAt?: string } | undefined;
  let execution: PendingExecution | undefined;

  if (o.kind === 'allowed') {
    w.reserve = { taskId: req.taskId, amountMicros: o.amountMicros };
    if (o.consumeApprovalId) w.consumeApproval = { approvalId: o.consumeApprovalId, consumedAt: at };
    if (p.constraintsRoot) {
      w.admission = {
        id: ids('adm'),
        rootId: p.constraintsRoot,
        taskId: req.taskId,
        intentId,
        actorId: caller.id,
        capability: req.capability,
        amountMicros: o.amountMicros,
        createdAt: at,
      };
    }
    if (req.route === 'action' && p.custody === 'grant') {
      grant = { grantId: ids('grt'), expiresAt: new Date(now.getTime() + GRANT_TTL_MS).toISOString() };
      w.grant = {
        id: grant.grantId,
        intentId,
        actorId: caller.id,
        capability: req.capability,
        taskId: req.taskId,
        expiresAt: grant.expiresAt,
        createdAt: at,
      };
    }
    if (req.route === 'brokered' && p.brokered) {
      // The intent to execute is durable before the provider is called: committed with the
      // decision, so a crash mid-call leaves a pending row that start-up finds.
      execution = { executionId: ids('exe'), ...p.brokered };
      w.execution = {
        id: execution.executionId,
        intentId,
        taskId: req.taskId,
        step: req.step,
        actorId: caller.id,
        capability: req.capability,
        action: req.action,
        tier: o.tier,
        surfaceId: p.brokered.surfaceId,
        operation: p.brokered.operation,
        credentialRef: p.brokered.credentialRef,
        createdAt: at,
      };
    }
    if (o.consumeApprovalId) approval = { approvalId: o.consumeApprovalId, status: 'consumed' };
  } else if (o.kind === 'deferred') {
    if (o.openApproval) {
      approval = {
        approvalId: ids('apr'),
        status: 'pending',
        expiresAt: new Date(now.getTime() + APPROVAL_TTL_MS).toISOString(),
      };
      w.openApproval = {
        id: approval.approvalId,
        intentId,
        taskId: req.taskId,
        step: req.step,
        capability: req.capability,
        action: req.action,
        requesterId: caller.id,
        amountMicros: o.amountMicros,
        amountSource: req.amountSource,
        requestDigest: req.digest,
        request: cjson(requestIdentity(req.body)),
        expiresAt: approval.expiresAt!,
        createdAt: at,
      };
    } else if (o.approvalId) {
      approval = { approvalId: o.approvalId, status: 'pending' };
    }
  }

  const committed = o.kind === 'allowed' ? o.amountMicros : 0n;
  const code = o.kind === 'refused' ? o.code : null;
  const reason = o.kind === 'allowed' ? null : o.reason;
  const remedy = o.kind === 'allowed' ? null : (o.remedy ?? null);
  const intent: IntentRow = {
    tenantId: t,
    id: intentId,
    taskId: req.taskId,
    step: req.step,
    actorId: caller.id,
    capability: req.capability,
    action: req.action,
    route: req.route,
    requestDigest: req.digest,
    request: JSON.stringify({
      capability: req.capability,
      action: req.action,
      task_id: req.taskId,
      effect_key_step: req.step,
    }),
    outcome: o.kind,
    code,
    reason,
    amountMicros: o.amountMicros,
    grantId: grant?.grantId ?? null,
    approvalId: approval?.approvalId ?? null,
    receiptId,
    at,
  };

  const key = { taskId: req.taskId, step: req.step };
  const held = { state: 'deferred', intentId } as const;
  let effectKey: EffectKeyWrite | undefined;
  if (mode === 'new' && (o.kind === 'allowed' || o.kind === 'deferred')) {
    const state = o.kind === 'allowed' ? 'claimed' : 'deferred';
    effectKey = { op: 'insert', ...key, state, intentId, requestDigest: req.digest, at };
  } else if (mode === 'resume' && o.kind === 'allowed') effectKey = { op: 'claim', ...key, at, expect: held };
  else if (mode === 'resume' && o.kind === 'refused') effectKey = { op: 'drop', ...key, expect: held };

  // Keys in sorted (RFC 8785) order: the record is canonicalised in one native pass.
  const record: Record<string, unknown> = {
    action: req.action,
    actor_id: caller.id,
    allowed: o.kind === 'allowed',
    amount_usd: formatUsd(committed),
    approval_id: approval?.approvalId ?? null,
    capability: req.capability,
    code,
    correlation_id: req.correlationId,
    determining: o.kind === 'refused' ? (o.determining ?? []) : o.kind === 'allowed' ? o.determining : [],
    effect_key_step: req.step,
    ...(execution ? { execution_id: execution.executionId } : {}),
    grant_expires_at: grant?.expiresAt ?? null,
    grant_id: grant?.grantId ?? null,
    intent: req.intent,
    intent_id: intentId,
    kind: 'decision',
    occurred_at: at,
    outcome: o.kind,
    reason,
    receipt_id: receiptId,
    remedy,
    request_digest: req.digest,
    requested_usd: formatUsd(o.amountMicros),
    resumed: mode === 'resume',
    route: req.route,
    task_id: req.taskId,
    tenant_id: t,
    tier: o.tier,
    trace_id: req.traceId,
    v: 1,
  };
  const journal: JournalAppend = {
    tenantId: t,
    kind: 'decision',
    receiptId,
    taskId: req.taskId,
    intentId,
    actorId: caller.id,
    capability: req.capability,
    tier: o.tier,
    allowed: o.kind === 'allowed',
    grantId: grant?.grantId ?? '',
    amountMicros: committed,
    occurredAt: at,
    record,
  };

  // One object shape whatever the outcome (absent parts are undefined), and the reply's optional
  // fields assigned rather than spread: spreading into these literals cost more than the rest
  // of the plan together.
  const reply: DecisionWrites['reply'] = {
    kind: 'sealed',
    outcome: o.kind,
    intentId,
    amountMicros: committed,
    receipt: { receiptId, occurredAt: at, record },
  };
  if (code !== null) reply.code = code;
  if (reason !== null) reply.reason = reason;
  if (remedy !== null) reply.remedy = remedy;
  if (grant) reply.grant = grant;
  if (approval) reply.approval = approval;
  if (execution) reply.execution = execution;
  return {
    tenantId: t,
    at,
    intentId,
    receiptId,
    reserve: w.reserve,
    consumeApproval: w.consumeApproval,
    admission: w.admission,
    grant: w.grant,
    execution: w.execution,
    openApproval: w.openApproval,
    intent,
    intentWrite: mode === 'new' ? 'insert' : 'update',
    effectKey,
    journal,
    inputs: o.policyStep === undefined ? undefined : recordedInputs(o.policyStep, p.policyVersion ?? 0),
    reply,
  };
}

/** The reply to a sealed decision, once its record is appended. */
export function sealedReply(w: DecisionWrites, appended: Appended): Sealed {
  const r = w.reply.receipt;
  return {
    ...w.reply,
    receipt: {
      receiptId: r.receiptId,
      sequence: appended.sequence,
      recordHash: appended.recordHash,
      occurredAt: r.occurredAt,
      record: r.record,
    },
  };
}

/** The stored journal row of a standing deferral's receipt. */
export interface StandingReceiptRow {
  receiptId: string;
  sequence: number;
  recordHash: string;
  /** the stored canonical record text */
  record: string;
  occurredAt: string;
}

/**
 * A resume that found the deferral as it stood: answered with the deferral's own sealed
 * receipt, and nothing written, so a client polling for its approval adds no records.
 */
export function standingReply(
  intentId: string,
  o: Extract<SealedOutcome, { kind: 'deferred' }>,
  row: StandingReceiptRow,
): Sealed {
  return {
    kind: 'sealed',
    outcome: 'deferred',
    intentId,
    reason: o.reason,
    remedy: o.remedy,
    amountMicros: 0n,
    receipt: {
      receiptId: row.receiptId,
      sequence: row.sequence,
      recordHash: row.recordHash,
      occurredAt: row.occurredAt,
      record: JSON.parse(row.record) as Record<string, unknown>,
    },
    ...(o.approvalId ? { approval: { approvalId: o.approvalId, status: 'pending' } } : {}),
  };
}
