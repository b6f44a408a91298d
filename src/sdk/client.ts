import { SvcError } from '../core/errors.js';
import { clientConfig, type ClientOptions } from './config.js';
import {
  decisionOutcome,
  type BrokeredOutcome,
  type Deferred,
  type DecisionInput,
  type DecisionOutcome,
  type DecisionRoute,
  type Outcome,
} from './outcome.js';
import { reconcileReceipts, type Reconciled } from './reconcile.js';
import { answerBody, Transport } from './transport.js';
import * as W from './wire.js';

type OperationId = keyof typeof W.OPERATIONS;

/** Every SDK method named after the daemon operation it calls (a test checks them against OpenAPI). */
export const SDK_METHODS: readonly OperationId[] = [
  'action',
  'resume',
  'brokered',
  'resumeBrokered',
  'federate',
  'observe',
  'presentGrant',
  'grantReceipt',
  'capabilities',
  'catalogue',
  'requestAccess',
  'accessRequest',
  'revokeAccessRequest',
  'managerCards',
  'decideManagerCard',
  'approvals',
  'approval',
  'decideApproval',
  'entitlements',
  'tasks',
  'task',
  'executionConstraints',
  'receipts',
  'receipt',
  'health',
];

export type Page<T> = { items: T[]; next_cursor: string | null };
export interface Identity {
  tenant_id: string;
  actor_id: string;
}

function pathOf(op: OperationId, id?: string, query?: Record<string, unknown>): string {
  let path: string = W.OPERATIONS[op].path;
  if (id !== undefined) {
    if (typeof id !== 'string' || id === '')
      throw new SvcError('usage', 'id: expected a non-empty string', { field: 'id' });
    path = path.replace('{id}', encodeURIComponent(id));
  }
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) q.set(k, String(v));
  const s = q.toString();
  return s === '' ? path : `${path}?${s}`;
}

/**
 * A client of the svc daemon for agents. Decision methods return typed outcomes (allowed,
 * deferred, refused, conflict, failure, unknown) and never retry on their own; every other
 * method returns the daemon's answer or throws a coded `SvcError`. A daemon that cannot be
 * reached is an error, never an empty answer.
 */
export class SvcClient {
  private readonly transport: Transport;
  private identityOnce: Promise<Identity> | undefined;

  constructor(options: ClientOptions & { identity?: Identity } = {}) {
    this.transport = new Transport(clientConfig(options));
    if (options.identity) this.identityOnce = Promise.resolve(options.identity);
  }

  get endpoint(): string {
    return this.transport.config.endpoint;
  }

  /** The tenant and actor the token authenticates (asked once, from GET /v1/capabilities). */
  identity(): Promise<Identity> {
    this.identityOnce ??= this.capabilities().then(
      (c) => ({ tenant_id: c.tenant_id, actor_id: c.actor_id }),
      (err: unknown) => {
        this.identityOnce = undefined;
        throw err;
      },
    );
    return this.identityOnce;
  }

  private async call<T>(
    op: OperationId,
    opts: { id?: string; query?: object; body?: unknown } = {},
  ): Promise<T> {
    const { method } = W.OPERATIONS[op];
    const ex = await this.transport.send(
      method,
      pathOf(op, opts.id, opts.query as Record<string, unknown>),
      opts.body,
    );
    if (ex.kind === 'not_sent') throw ex.error;
    if (ex.kind === 'lost') {
      throw new SvcError('unavailable', `${op}: ${ex.reason}`, {
        code: 'outcome_unknown',
        cause: ex.cause,
        remedy: method === 'GET' ? 'try again' : 'read the state back before repeating the request',
      });
    }
    return answerBody(ex, op) as T;
  }

  private async decide<D>(op: OperationId, route: DecisionRoute, input: DecisionInput): Promise<Outcome<D>> {
    const who = await this.identity();
    const request: W.ActionRequest = { ...input, tenant_id: who.tenant_id, actor_id: who.actor_id };
    return decisionOutcome<D>(route, request, await this.transport.send('POST', pathOf(op), request));
  }

  private static resumable(which: DecisionRoute, from: DecisionInput | Deferred<unknown>): DecisionInput {
    if (!('kind' in from)) return from;
    if (from.route !== which) {
      throw new SvcError('usage', `this deferral was made on /v1/${from.route}; resume it there`, {
        remedy: from.route === 'brokered' ? 'call resumeBrokered' : 'call resume',
      });
    }
    const { tenant_id: _t, actor_id: _a, ...input } = from.request;
    return input;
  }

  /** POST /v1/action: a recorded decision; a grant when allowed. Does not execute. */
  action(input: DecisionInput): Promise<DecisionOutcome> {
    return this.decide('action', 'action', input);
  }

  /** POST /v1/action/resume with the deferred request unchanged (pass the deferral or the same input). */
  async resume(deferred: DecisionInput | Deferred<W.Decision>): Promise<DecisionOutcome> {
    return this.decide('resume', 'action', SvcClient.resumable('action', deferred));
  }

  /** POST /v1/brokered: decide and, when allowed, execute through the daemon's connector. */
  brokered(input: DecisionInput): Promise<BrokeredOutcome> {
    return this.decide('brokered', 'brokered', input);
  }

  /** POST /v1/brokered/resume: executes only if the revalidated decision allows. */
  async resumeBrokered(deferred: DecisionInput | Deferred<W.BrokeredDecision>): Promise<BrokeredOutcome> {
    return this.decide('resumeBrokered', 'brokered', SvcClient.resumable('brokered', deferred));
  }

  /** POST /v1/federate: refused (`no federated backend`) in the supplied distribution. */
  federate(input: DecisionInput): Promise<DecisionOutcome> {
    return this.decide('federate', 'federate', input);
  }

  observe(body: W.ObserveBody): Promise<W.ObserveResponse> {
    return this.call('observe', { body });
  }

  presentGrant(grantId: string): Promise<W.PresentGrantResponse> {
    return this.call('presentGrant', { body: { grant_id: grantId } satisfies W.PresentGrantBody });
  }

  grantReceipt(body: W.GrantReceiptBody): Promise<W.GrantReceiptResponse> {
    return this.call('grantReceipt', { body });
  }

  capabilities(): Promise<W.CapabilitiesResponse> {
    return this.call('capabilities');
  }

  catalogue(): Promise<W.CatalogueResponse> {
    return this.call('catalogue');
  }

  requestAccess(body: W.RequestAccessBody): Promise<W.RequestAccessResponse> {
    return this.call('requestAccess', { body });
  }

  accessRequest(id: string): Promise<W.AccessRequestResponse> {
    return this.call('accessRequest', { id });
  }

  revokeAccessRequest(
    id: string,
    body: W.RevokeAccessRequestBody = {},
  ): Promise<W.RevokeAccessRequestResponse> {
    return this.call('revokeAccessRequest', { id, body });
  }

  managerCards(query: W.ManagerCardsQuery = {}): Promise<W.ManagerCardsResponse> {
    return this.call('managerCards', { query });
  }

  decideManagerCard(body: W.DecideManagerCardBody): Promise<W.DecideManagerCardResponse> {
    return this.call('decideManagerCard', { body });
  }

  approvals(query: W.ApprovalsQuery = {}): Promise<W.ApprovalsResponse> {
    return this.call('approvals', { query });
  }

  approval(id: string): Promise<W.ApprovalResponse> {
    return this.call('approval', { id });
  }

  /** For approvers (registered humans): approve or deny; the first decision wins. */
  decideApproval(id: string, body: W.DecideApprovalBody): Promise<W.DecideApprovalResponse> {
    return this.call('decideApproval', { id, body });
  }

  entitlements(query: W.EntitlementsQuery = {}): Promise<W.EntitlementsResponse> {
    return this.call('entitlements', { query });
  }

  tasks(query: W.TasksQuery = {}): Promise<W.TasksResponse> {
    return this.call('tasks', { query });
  }

  task(id: string): Promise<W.TaskResponse> {
    return this.call('task', { id });
  }

  executionConstraints(taskId: string): Promise<W.ExecutionConstraintsResponse> {
    return this.call('executionConstraints', { id: taskId });
  }

  /** Every page of receipts in journal order, following next_cursor until the last. */
  async *receipts(
    query: Omit<W.ReceiptsQuery, 'cursor' | 'work_id'> = {},
  ): AsyncGenerator<W.ReceiptsResponse> {
    let cursor: string | undefined;
    do {
      const page: W.ReceiptsResponse = await this.call('receipts', { query: { ...query, cursor } });
      yield page;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  receipt(id: string): Promise<W.ReceiptResponse> {
    return this.call('receipt', { id });
  }

  health(): Promise<W.HealthResponse> {
    return this.call('health');
  }

  /**
   * After an unknown outcome: this caller's decision (and execution) for the effect key,
   * read from the task's receipts. Not found does not prove nothing was committed.
   */
  async reconcile(taskId: string, effectKeyStep: string): Promise<Reconciled> {
    const who = await this.identity();
    return reconcileReceipts(
      this.receipts({ task_id: taskId, limit: 200 }),
      who.actor_id,
      taskId,
      effectKeyStep,
    );
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
