import type { Column } from './list-output.js';
import { counted } from './plural.js';
import type { ReplicaRelease, ReplicaSeen } from '../store/replica-ports.js';

/** One replica as `svc store replicas --json` lists it (a contract: fields are added, never renamed). */
export interface ReplicaView {
  replica_id: string;
  host: string | null;
  pid: number | null;
  version: string | null;
  started_at: string | null;
  last_heartbeat: string | null;
  /** by the database's clock */
  heartbeat_age_ms: number | null;
  /** a live daemon holds this replica id now */
  holds_claim: boolean;
  /** brokered calls it started that are still in flight */
  pending_executions: number;
}

export const replicaView = (r: ReplicaSeen): ReplicaView => ({
  replica_id: r.replicaId,
  host: r.host,
  pid: r.pid,
  version: r.version,
  started_at: r.startedAt,
  last_heartbeat: r.lastHeartbeat,
  heartbeat_age_ms: r.heartbeatAgeMs,
  holds_claim: r.live,
  pending_executions: r.pending,
});

function age(ms: number | null): string {
  if (ms === null) return 'never';
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s}s ago`;
  if (s < 7200) return `${Math.floor(s / 60)}m ago`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

export const REPLICA_COLUMNS: Column<ReplicaView>[] = [
  { header: 'replica', cell: (r) => r.replica_id },
  { header: 'claim', cell: (r) => (r.holds_claim ? 'held (live)' : 'free (not running)') },
  { header: 'last heartbeat', cell: (r) => age(r.heartbeat_age_ms) },
  { header: 'in flight', cell: (r) => r.pending_executions },
  { header: 'host', cell: (r) => r.host },
  { header: 'pid', cell: (r) => r.pid },
  { header: 'version', cell: (r) => r.version },
  { header: 'started', cell: (r) => r.started_at },
];

/** `svc store replicas release --json`. */
export interface ReplicaReleaseView {
  replica_id: string;
  released: {
    tenant_id: string;
    execution_id: string;
    intent_id: string;
    receipt_id: string;
    sequence: number;
  }[];
  /** its row in the list was removed (false: it had none, or it was released before) */
  forgotten: boolean;
}

export const replicaReleaseView = (r: ReplicaRelease): ReplicaReleaseView => ({
  replica_id: r.replicaId,
  released: r.released.map((c) => ({
    tenant_id: c.tenantId,
    execution_id: c.executionId,
    intent_id: c.intentId,
    receipt_id: c.receiptId,
    sequence: c.sequence,
  })),
  forgotten: r.forgotten,
});

export function renderRelease(r: ReplicaReleaseView): string {
  if (r.released.length === 0) {
    return `Replica ${r.replica_id} had no brokered call in flight: nothing to release${r.forgotten ? '; removed from the list' : ''}.`;
  }
  return [
    `Released replica ${r.replica_id}: ${counted(r.released.length, 'brokered call', 'brokered calls')} in flight sealed as outcome unknown (never sent again; reconcile with the provider):`,
    ...r.released.map(
      (c) =>
        `  tenant ${c.tenant_id}: execution ${c.execution_id}, intent ${c.intent_id}, journal sequence ${c.sequence} (receipt ${c.receipt_id})`,
    ),
  ].join('\n');
}
