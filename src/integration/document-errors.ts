import { isMap, isScalar, isSeq, type Document } from 'yaml';
import { SvcError } from '../core/errors.js';

/** Where a document error is: the YAML node a zod path names, and the words for it. */
export type DocPath = readonly (string | number)[];

/** Where the node at `path` starts, or its nearest ancestor that exists; `key`: the map key itself. */
export function offsetOf(doc: Document.Parsed, path: DocPath, key: boolean): number {
  let node: unknown = doc.contents;
  for (const [i, step] of path.entries()) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === step);
      next = pair && (key && i === path.length - 1 ? pair.key : (pair.value ?? pair.key));
    } else if (isSeq(node) && typeof step === 'number') {
      next = node.items[step];
    }
    if (next === undefined || next === null) break;
    node = next;
  }
  return (node as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
}

export function pathText(path: DocPath): string {
  if (path.length === 0) return '(document)';
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

/** zod's messages in the project's words: what was expected, and what was found. */
export function message(issue: { code?: string; input?: unknown; expected?: unknown }): string | undefined {
  if (issue.input === undefined) return 'required';
  if (issue.code === 'invalid_type') {
    const v = issue.input;
    const got =
      v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'a mapping' : typeof v;
    return `expected ${String(issue.expected)}, got ${got}`;
  }
  return undefined;
}

export function invalid(file: string, lines: string[]): SvcError {
  const shown = lines.slice(0, 20);
  const more = lines.length > shown.length ? `\n  (and ${lines.length - shown.length} more)` : '';
  return new SvcError(
    'usage',
    `${file} is not a valid integration-operations document:\n  ${shown.join('\n  ')}${more}`,
    { field: 'integration-ops', remedy: 'see docs/api.md "Integration operations" for the format' },
  );
}
