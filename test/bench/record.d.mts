// Types for the bench recorder (record.mjs), for its unit test.
export const PERFORMANCE_MD: string;
export const START: string;
export const END: string;
export const COLUMNS: { section: string }[];
export function parseBench(output: string): Record<string, string>;
export function benchRow(row: {
  date: string;
  commit: string;
  machine: string;
  figures: Record<string, string>;
}): string;
export function appendRow(markdown: string, row: string): string;
export function machine(): string;
export function recordRun(output: string, options?: { file?: string; now?: Date }): Promise<string>;
