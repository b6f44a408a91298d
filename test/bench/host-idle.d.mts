// Types for the bench's host idle reader (host-idle.mjs), for its unit test.
export interface HostIdle {
  driver: string;
  haltPollNs?: number;
}
export function hostIdle(sys?: string): HostIdle | undefined;
export function describeHostIdle(idle: HostIdle | undefined): string;
