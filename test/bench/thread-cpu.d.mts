// Types for the bench's main-thread CPU reader (thread-cpu.mjs), for its unit test.
export function mainThreadCpu(pid: number): number | undefined;
export function cpuSince(before: number | undefined, after: number | undefined): number | undefined;
export function perDecisionUs(used: number | undefined, decisions: number): number | undefined;
