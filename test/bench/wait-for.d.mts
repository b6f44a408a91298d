// Types for the bench's start-up wait (wait-for.mjs), for its unit test.
import type { ChildProcess } from 'node:child_process';
export const WAIT_FOR_MS: number;
export function waitFor(child: ChildProcess, re: RegExp, ms?: number): Promise<string>;
