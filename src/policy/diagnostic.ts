/**
 * Policy diagnostics with human positions. The engine reports source spans as UTF-8 byte
 * offsets into the policy text; operators need a line and a column, and a policy with a
 * non-ASCII `@reason` must not shift every later error.
 */
import type { DetailedError } from './cedar-engine.js';

export interface PolicyDiagnostic {
  message: string;
  /** 1-based line of the first byte the engine points at. */
  line: number;
  /** 1-based column, in Unicode code points. */
  column: number;
  /** The engine's id of the policy concerned (`policy0` is the first in the text), when known. */
  policyId?: string;
  help?: string;
}

export interface Position {
  line: number;
  column: number;
}

/** Line and column of a UTF-8 byte offset; offsets past the end land after the last character. */
export function positionOfByte(text: string, byteOffset: number): Position {
  let line = 1;
  let column = 1;
  let bytes = 0;
  for (const char of text) {
    if (bytes >= byteOffset) break;
    bytes += utf8Length(char.codePointAt(0)!);
    if (char === '\n') {
      line += 1;
      column = 1;
    } else {
      column += 1;
    }
  }
  return { line, column };
}

/** Line and column of a JavaScript string index. */
export function positionOfIndex(text: string, index: number): Position {
  const before = text.slice(0, index);
  const lastBreak = before.lastIndexOf('\n');
  const line = before.split('\n').length;
  return { line, column: [...before.slice(lastBreak + 1)].length + 1 };
}

function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/**
 * One diagnostic per engine error and per related error (a parse error's precise token
 * often sits in `related`). `fallback` positions an error that carries no span: the start
 * of its policy when that is known, else the start of the text.
 */
export function toDiagnostics(
  text: string,
  error: DetailedError,
  policyId: string | undefined,
  fallback: Position,
): PolicyDiagnostic[] {
  const span = error.sourceLocations?.[0];
  const position = span === undefined ? fallback : positionOfByte(text, span.start);
  const label = span?.label;
  const diagnostic: PolicyDiagnostic = {
    message: label ? `${error.message} (${label})` : error.message,
    ...position,
  };
  if (policyId !== undefined) diagnostic.policyId = policyId;
  if (error.help) diagnostic.help = error.help;
  const related = (error.related ?? []).flatMap((r) => toDiagnostics(text, r, policyId, position));
  return [diagnostic, ...related];
}

/** `line:column: message`, the form the CLI prints. */
export function formatDiagnostic(d: PolicyDiagnostic): string {
  return `${d.line}:${d.column}: ${d.message}${d.help ? ` (help: ${d.help})` : ''}`;
}
