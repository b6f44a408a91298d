import { SvcError } from './errors.js';

/**
 * How deep a request body may nest. A decision's `params` is an operation's arguments;
 * 32 levels is far beyond any API we broker, and the bound keeps every recursive consumer
 * behind it (the lone-surrogate scan, zod, the RFC 8785 canonicaliser) far from the stack.
 */
export const MAX_JSON_DEPTH = 32;

/** A field path longer than this is cut in messages: a reason names the field, it does not echo the body. */
const MAX_PATH_CHARS = 200;

interface Frame {
  array: boolean;
  /** the member being read: its key in an object, its index in an array */
  key: string;
  index: number;
  keys: Set<string> | undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parse a JSON request body as I-JSON (RFC 7493), which RFC 8785 canonical JSON assumes:
 * UTF-8 only, no duplicate member names, numbers that are finite doubles; also at most
 * MAX_JSON_DEPTH levels deep and no prototype-polluting member names. Every refusal is a
 * 400 naming the JSON path at fault. The text is scanned iteratively before JSON.parse,
 * so no input can exhaust the stack of anything that walks the value afterwards.
 */
export function parseJsonText(bytes: Uint8Array, where = 'body'): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw refuse(where, 'expected UTF-8 text (the body holds bytes that are not UTF-8)');
  }
  if (text.trim() === '') throw refuse(where, 'expected a JSON object, got an empty body');
  scan(text, where);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    // V8's message quotes the input; only the position is worth repeating.
    const at = /position (\d+)/.exec((err as Error).message);
    throw refuse(where, `expected valid JSON${at ? ` (syntax error at byte offset ${at[1]})` : ''}`);
  }
}

function refuse(field: string, expected: string): SvcError {
  return new SvcError('invalid_request', `${field}: ${expected}`, { field });
}

function pathOf(stack: readonly Frame[], where: string): string {
  if (stack.length === 0) return where;
  const path = stack.map((f) => (f.array ? String(f.index) : f.key)).join('.');
  return path.length > MAX_PATH_CHARS ? `${path.slice(0, MAX_PATH_CHARS)}…` : path;
}

/** Index of the quote that closes the string opening at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  // Every decision body goes through here: jump from quote to quote natively; a quote
  // closes the string when an even number of backslashes precede it.
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let b = at - 1;
    while (text.charCodeAt(b) === 0x5c) b--;
    if ((at - 1 - b) % 2 === 0) return at;
  }
}

/** A member name that needs JSON.parse to be read: an escape, or a control character it refuses. */
function needsParse(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x5c || c < 0x20) return true;
  }
  return false;
}

function isNumberChar(c: number): boolean {
  // digits, '.', 'e', 'E', '+', '-'
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

/**
 * One pass over the text with an explicit stack. It judges only what JSON.parse would let
 * through; anything malformed is left for JSON.parse to refuse.
 */
function scan(text: string, where: string): void {
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      // '{' or '['
      if (stack.length >= MAX_JSON_DEPTH) {
        throw refuse(pathOf(stack, where), `expected JSON nested at most ${MAX_JSON_DEPTH} levels deep`);
      }
      const array = c === 0x5b;
      stack.push({ array, key: '', index: 0, keys: array ? undefined : new Set() });
      expectKey = !array;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      const top = stack.at(-1);
      if (top?.array) top.index++;
      else if (top) expectKey = true;
    } else if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) return;
      const top = stack.at(-1);
      if (top?.keys && expectKey) {
        let key = text.slice(i + 1, end);
        if (needsParse(key)) {
          try {
            key = JSON.parse(`"${key}"`) as string;
          } catch {
            return;
          }
        }
        top.key = key;
        if (top.keys.has(key))
          throw refuse(pathOf(stack, where), 'expected each member name once (a duplicate key was sent)');
        top.keys.add(key);
        const parent = stack.at(-2);
        if (key === '__proto__' || (key === 'prototype' && parent?.keys && parent.key === 'constructor')) {
          throw refuse(pathOf(stack, where), 'expected a plain member name (this one is refused)');
        }
        expectKey = false;
      }
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < text.length && isNumberChar(text.charCodeAt(j))) j++;
      const n = Number(text.slice(i, j));
      if (n === Infinity || n === -Infinity) {
        throw refuse(
          pathOf(stack, where),
          'expected a finite number (this one is beyond the range of a double)',
        );
      }
      i = j - 1;
    }
  }
}
