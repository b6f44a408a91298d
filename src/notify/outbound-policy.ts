/**
 * What the daemon lets a notification reach (semantics.md: a deployment-wide allow-list
 * decides which hosts may be reached; http only to loopback and only when the deployment
 * allows it; redirects are not followed). The CONTRACT between the senders and the loop.
 */
export interface OutboundPolicy {
  /** `http://` to a loopback address (`--notify-allow-loopback-http`); never any other http */
  allowLoopbackHttp: boolean;
  /**
   * Private, link-local, unique-local, CGNAT and metadata addresses are refused unless a
   * deployment lists them here (`--notify-allow-private`, repeatable): CIDRs (`10.0.0.0/8`)
   * or host names as written in the destination URL.
   */
  allowPrivate: readonly string[];
  /** the whole attempt: connect, TLS, request, response (semantics.md: 10 s) */
  timeoutMs: number;
  /** a receiver's answer is read up to this many bytes, then dropped unread */
  maxResponseBytes: number;
}

export const DEFAULT_OUTBOUND_POLICY: OutboundPolicy = {
  allowLoopbackHttp: false,
  allowPrivate: [],
  timeoutMs: 10_000,
  maxResponseBytes: 64 * 1024,
};

/**
 * One attempt's outcome. A 2xx is success; 410 Gone disables the destination; anything else,
 * a time-out or a connection failure is retried. `refused` is the policy saying no at send
 * time (the name now resolves to a private address): retried too, since a deployment may
 * fix its allow-list, and counted apart. `error` is a short code (`timeout`, `connect`,
 * `status_500`, `private_address`, …): never a response body, token or secret.
 */
export type SendOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'gone'; status: 410 }
  | { kind: 'retry'; status: number | null; error: string }
  | { kind: 'refused'; error: string };
