import type { Actor } from '../core/actor.js';
import type { ApprovalStatus } from '../core/approval.js';
import type { ApprovalDecided, ApprovalDecisionInput } from '../core/approval-decision.js';
import type { Capability } from '../core/capability.js';
import type { AmountSource } from '../core/decision/request.js';
import type { ExecutionPlan } from '../core/constraints.js';
import type { Micros } from '../core/money.js';
import type { PublishedReceipt } from '../core/receipt.js';
import type { EntryLine } from '../evidence/export-line.js';
import type { Task, TaskStatus } from '../core/task.js';

/**
 * What callers read back: tasks, execution constraints, approvals, receipts, and what a
 * caller holds or may request. Every method takes the viewer and answers only inside the
 * viewer's tenant, narrowed by the read rules of core/readers.ts and core/approval.ts, so a
 * record of another tenant, or one the viewer may not read, is simply absent. The two
 * writes here (installing a plan, deciding an approval) sit beside the reads they guard.
 */

/** Keyset paging: `after` is the key of the previous page's last item. */
export interface Keyset<K> {
  limit: number;
  after?: K | undefined;
}

export interface KeysetPage<T, K> {
  items: T[];
  /** undefined on the last page */
  next?: K | undefined;
}

export interface TaskSummary extends Task {
  constraintsInstalled: boolean;
}

export interface TaskReads {
  /** ordered by id */
  list(
    viewer: Actor,
    page: Keyset<string>,
    filter: { status?: TaskStatus },
  ): Promise<KeysetPage<TaskSummary, string>>;
  get(viewer: Actor, id: string): Promise<TaskSummary | undefined>;
}

export interface AdmissionRecord {
  /** the reservation id */
  id: string;
  rootId: string;
  taskId: string;
  intentId: string;
  actorId: string;
  capability: string;
  amountMicros: Micros;
  createdAt: string;
}

export type AdmissionLedger =
  | { visibility: 'full'; admissions: AdmissionRecord[]; count: number; totalMicros: Micros }
  | { visibility: 'own'; reservationIds: string[] };

export interface ConstraintProfile {
  taskId: string;
  rootId: string;
  rootSponsorId: string;
  plan: ExecutionPlan | null;
  installedAt: string | null;
  installedBy: string | null;
  ledger: AdmissionLedger;
}

export interface ExecutionConstraints {
  /** the profile of the task's root, as the viewer may see it */
  profile(viewer: Actor, taskId: string): Promise<ConstraintProfile | undefined>;
  /**
   * Install the immutable plan on an unused draft root and activate it, in one transaction;
   * refused (403/409) unless the installer is the registered human sponsor and the root is
   * still draft, unconstrained and without admissions.
   */
  install(installer: Actor, taskId: string, plan: ExecutionPlan, at: Date): Promise<ConstraintProfile>;
}

export interface ApprovalRecord {
  id: string;
  /** `expired` computed at read time */
  status: ApprovalStatus;
  intentId: string;
  taskId: string;
  step: string;
  capability: string;
  action: string;
  requesterId: string;
  amountMicros: Micros;
  requestDigest: string;
  /** where the amount came from; null for approvals opened before it was recorded */
  amountSource: AmountSource | null;
  /** CJSON of the body the digest binds (params included); null before it was stored, or redacted */
  request: string | null;
  /** the requester's short description, when the intent carries one */
  intent: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  channel: string | null;
  note: string | null;
  expiresAt: string;
  createdAt: string;
}

export interface ApprovalKey {
  createdAt: string;
  id: string;
}

/** The decision's input is the use case's (core/approval-decision.ts), which every channel builds. */
export type { ApprovalDecisionInput };

export type DecidedApproval = ApprovalDecided<ApprovalRecord>;

/**
 * Which approvals a list returns, and in which order (default: oldest first). `history` is
 * every approval no longer waiting: approved, denied, consumed or expired.
 */
export interface ApprovalFilter {
  status?: ApprovalStatus | 'history';
  requesterId?: string;
  capability?: string;
  order?: 'oldest' | 'newest';
}

export interface Approvals {
  /** by (created_at, id), oldest first unless the filter asks for newest first */
  list(
    viewer: Actor,
    page: Keyset<ApprovalKey>,
    filter: ApprovalFilter,
    now: Date,
  ): Promise<KeysetPage<ApprovalRecord, ApprovalKey>>;
  get(viewer: Actor, id: string, now: Date): Promise<ApprovalRecord | undefined>;
  /**
   * Decide an approval and journal the decision in one write transaction, under the rules
   * of core/approval.ts `decisionRefusal`; the first decision wins. Every channel (API,
   * console, chat and collaboration callbacks) goes through here.
   */
  decide(input: ApprovalDecisionInput): Promise<DecidedApproval>;
  /** Approvals pending and unexpired at `now`, per tenant with any (metrics; a partial index). */
  pendingCounts(now: Date): Promise<{ tenantId: string; count: number }[]>;
}

export interface Receipts {
  /** in journal order; a task filter naming no task of the tenant is `not_found` */
  list(
    viewer: Actor,
    page: Keyset<number>,
    filter: { taskId?: string },
  ): Promise<KeysetPage<PublishedReceipt, number>>;
  get(viewer: Actor, receiptId: string): Promise<PublishedReceipt | undefined>;
  /** The receipt's entry as an export line (what a proof covers), under the same read rule as get. */
  entryOf(viewer: Actor, receiptId: string): Promise<EntryLine | undefined>;
  /**
   * Newest first, one bounded window: the `span` journal rows (of the task, with a task
   * filter) below sequence `before` (the newest without it) are examined, and those the
   * viewer reads returned. `next` is the lowest sequence examined when older rows may remain:
   * the `before` of the next window. A task of no readable row simply returns none.
   */
  newest(
    viewer: Actor,
    window: { before?: number | undefined; span: number },
    filter: { taskId?: string },
  ): Promise<{ items: PublishedReceipt[]; next?: number | undefined }>;
}

export interface Discovery {
  /** capabilities the actor holds by a standing permission or a live entitlement */
  held(tenantId: string, actorId: string, now: Date): Promise<Capability[]>;
  /** requestable capabilities the actor does not hold */
  catalogue(tenantId: string, actorId: string, now: Date): Promise<Capability[]>;
}

export interface QueryPorts {
  readonly taskReads: TaskReads;
  readonly constraints: ExecutionConstraints;
  readonly approvals: Approvals;
  readonly receipts: Receipts;
  readonly discovery: Discovery;
}
