/**
 * The daemon's side of a shadow policy: every sealed decision that reached the policy step is
 * put to the tenant's candidate as well, after the commit and off the reply's path, and only
 * where the candidate's verdict differs is anything recorded. Nothing here can change an
 * outcome: it sees a decision only once it is sealed, and its failures are logged, never thrown
 * into a request.
 *
 * How a daemon learns that a candidate was set or cleared (by the CLI, writing the store
 * directly, or by another replica): one cheap read per tenant per batch (`probe`: the
 * candidate's id and the registry version), made by the worker, never by a request. A
 * decision is compared with the candidate set when its batch runs, at most one batch after
 * its commit, so a candidate set before a decision is always there for it. A registry version
 * bump inside the decision's transaction would be as exact but would make every `shadow set`
 * throw away each tenant's compiled live policy, and the sealed value does not carry the
 * registry version: the probe costs one indexed read per batch instead.
 */
import type { Sealed } from '../core/decision/sealed.js';
import type { PolicyStep } from '../core/decision/outcome.js';
import { authorize } from '../policy/authorization.js';
import { differs, verdictOf, type PolicyVerdict } from '../policy/policy-difference.js';
import { inputsOf, requestOf } from '../policy/policy-inputs.js';
import { compilePolicySet, type CompiledPolicySet } from '../policy/policy-set.js';
import { verbsOf } from '../policy/verbs.js';
import type { Store } from '../store/ports.js';
import type { ShadowBatch } from '../store/shadow-ports.js';

export interface ShadowLog {
  warn(obj: object, msg: string): void;
}

export interface PolicyShadowOptions {
  /** decisions waiting to be compared, at most; beyond it they are counted as dropped */
  capacity?: number;
  /** decisions compared per batch (one probe and one write per tenant in it) */
  batch?: number;
  /** how long decisions gather before a batch runs, unless a whole batch is waiting (ms) */
  intervalMs?: number;
}

export const DEFAULT_SHADOW_CAPACITY = 20_000;
export const DEFAULT_SHADOW_BATCH = 2_000;
export const DEFAULT_SHADOW_INTERVAL_MS = 200;

interface Pending {
  tenantId: string;
  step: PolicyStep;
  intentId: string;
  seq: number;
  at: string;
}

/** A candidate compiled for one registry version; `failure` where it does not compile. */
interface Compiled {
  candidateId: string;
  /** when the candidate was set: a decision sealed before it belongs to no report of it */
  setAt: string;
  registryVersion: number;
  policy: CompiledPolicySet | undefined;
  failure: string | undefined;
  /** the compile result not yet written to the candidate's row */
  unannounced: boolean;
}

export class PolicyShadow {
  private readonly capacity: number;
  private readonly batchSize: number;
  private queue: Pending[] = [];
  private head = 0;
  private readonly dropped = new Map<string, number>();
  private readonly compiled = new Map<string, Compiled>();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly intervalMs: number;
  private log: ShadowLog | undefined;

  constructor(
    private readonly store: Pick<Store, 'shadows' | 'capabilities'>,
    opts: PolicyShadowOptions = {},
  ) {
    this.capacity = opts.capacity ?? DEFAULT_SHADOW_CAPACITY;
    this.batchSize = opts.batch ?? DEFAULT_SHADOW_BATCH;
    this.intervalMs = opts.intervalMs ?? DEFAULT_SHADOW_INTERVAL_MS;
  }

  useLog(log: ShadowLog): void {
    this.log = log;
  }

  /**
   * A sealed decision, handed over after its commit: queued and nothing more, so the reply
   * is never held. When the queue is full the decision is counted as dropped, never waited for.
   */
  observe(tenantId: string, sealed: Sealed): void {
    if (sealed.kind !== 'sealed' || sealed.policyStep === undefined) return;
    if (this.pending() >= this.capacity) {
      this.dropped.set(tenantId, (this.dropped.get(tenantId) ?? 0) + 1);
      this.schedule();
      return;
    }
    this.queue.push({
      tenantId,
      step: sealed.policyStep,
      intentId: sealed.intentId,
      seq: sealed.receipt.sequence,
      at: sealed.receipt.occurredAt,
    });
    if (this.pending() >= this.batchSize) this.start();
    else this.schedule();
  }

  /**
   * Settles once every decision queued so far was compared and recorded, or logged as lost
   * (a store that keeps failing is given three passes, so a closing daemon never hangs here).
   */
  async idle(): Promise<void> {
    for (let pass = 0; pass < 3 && this.busy(); pass++) {
      this.start();
      await this.running;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private busy(): boolean {
    return this.running !== undefined || this.pending() > 0 || this.dropped.size > 0;
  }

  private pending(): number {
    return this.queue.length - this.head;
  }

  /**
   * Decisions gather for a moment before a batch runs: one probe and one write per tenant
   * per batch, rather than per decision, is what keeps the shadow off the decisions' budget.
   */
  private schedule(): void {
    if (this.running || this.timer) return;
    this.timer = setTimeout(() => this.start(), this.intervalMs);
    // Never what keeps a stopping process alive: idle() flushes what is left.
    this.timer.unref();
  }

  private start(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running ??= this.drain();
  }

  private async drain(): Promise<void> {
    // After the reply's own turn: the comparison never runs in the request's tick.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      do {
        const batch = this.queue.slice(this.head, this.head + this.batchSize);
        this.head += batch.length;
        if (this.head === this.queue.length) {
          this.queue = [];
          this.head = 0;
        }
        await this.compare(batch);
        // Decisions keep their turns between batches.
        await new Promise<void>((resolve) => setImmediate(resolve));
      } while (this.pending() >= this.batchSize);
    } finally {
      this.running = undefined;
    }
    if (this.pending() > 0 || this.dropped.size > 0) this.schedule();
  }

  private async compare(batch: Pending[]): Promise<void> {
    const byTenant = new Map<string, Pending[]>();
    for (const p of batch) {
      const list = byTenant.get(p.tenantId);
      if (list) list.push(p);
      else byTenant.set(p.tenantId, [p]);
    }
    for (const tenantId of this.dropped.keys()) if (!byTenant.has(tenantId)) byTenant.set(tenantId, []);
    for (const [tenantId, items] of byTenant) {
      const dropped = this.dropped.get(tenantId) ?? 0;
      this.dropped.delete(tenantId);
      try {
        await this.compareTenant(tenantId, items, dropped);
      } catch (err) {
        // Lost, not guessed: the next batch tells the store they were not compared.
        this.dropped.set(tenantId, (this.dropped.get(tenantId) ?? 0) + dropped + items.length);
        this.log?.warn({ err, tenantId, decisions: items.length }, 'shadow policy comparison not recorded');
        await new Promise<void>((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  private async compareTenant(tenantId: string, items: Pending[], dropped: number): Promise<void> {
    const probe = await this.store.shadows.probe(tenantId);
    if (probe.candidateId === null) {
      this.compiled.delete(tenantId);
      return;
    }
    const c = await this.compiledFor(tenantId, probe.candidateId, probe.registryVersion);
    if (c === undefined) return;
    // Decisions queued before the candidate was set (the queue runs up to a batch window
    // behind) are not its traffic.
    items = items.filter((p) => p.at >= c.setAt);
    const out: ShadowBatch = {
      tenantId,
      candidateId: c.candidateId,
      compared: 0,
      dropped,
      uncompiled: 0,
      differences: [],
    };
    if (c.unannounced) {
      out.failure =
        c.failure === undefined ? null : { message: c.failure, registryVersion: c.registryVersion };
    }
    if (c.policy === undefined) out.uncompiled = items.length;
    else {
      for (const p of items) {
        const inputs = inputsOf(p.step.question, p.step.approvalTier);
        const current = liveVerdict(p.step, inputs);
        const candidate = verdictOf(authorize(c.policy, requestOf(tenantId, inputs)), inputs);
        out.compared += 1;
        if (differs(current, candidate)) {
          out.differences.push({ intentId: p.intentId, seq: p.seq, at: p.at, inputs, current, candidate });
        }
      }
    }
    if (out.compared === 0 && out.dropped === 0 && out.uncompiled === 0 && out.failure === undefined) return;
    await this.store.shadows.record(out);
    c.unannounced = false;
  }

  /** The candidate compiled once per (tenant, candidate, registry version). */
  private async compiledFor(
    tenantId: string,
    candidateId: string,
    registryVersion: number,
  ): Promise<Compiled | undefined> {
    const held = this.compiled.get(tenantId);
    if (held && held.candidateId === candidateId && held.registryVersion === registryVersion) return held;
    const record = await this.store.shadows.get(tenantId);
    if (record === undefined || record.candidateId !== candidateId) return undefined;
    const verbs = verbsOf(await this.store.capabilities.list(tenantId));
    let policy: CompiledPolicySet | undefined;
    let failure: string | undefined;
    try {
      policy = compilePolicySet(record.text, verbs);
    } catch (err) {
      // Registrations changed under the candidate: reported with the counts, decisions untouched.
      failure = (err as Error).message;
    }
    const c: Compiled = {
      candidateId,
      setAt: record.setAt,
      registryVersion,
      policy,
      failure,
      unannounced: true,
    };
    this.compiled.set(tenantId, c);
    return c;
  }
}

/** The verdict the decision was given at its policy step, rebuilt from the step itself. */
export function liveVerdict(step: PolicyStep, inputs: ReturnType<typeof inputsOf>): PolicyVerdict {
  return verdictOf(
    {
      decision: step.allow ? 'allow' : 'deny',
      basis: step.allow ? 'permit' : step.noPolicy ? 'no_policy_set' : 'forbid',
      determining: step.determining,
    },
    inputs,
  );
}
