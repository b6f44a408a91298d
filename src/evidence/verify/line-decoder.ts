import { cjson, findCanonicalProblem } from '../cjson.js';
import type { FindingCollector } from './findings.js';
import type { RawLine } from './line-reader.js';
import { MAX_NESTING_DEPTH, nestsDeeperThan } from './nesting-depth.js';

/** A line that passed the byte, UTF-8 and JSON rules: its text and its parsed object. */
export interface DecodedLine {
  number: number;
  text: string;
  value: Record<string, unknown>;
  /** The text is exactly CJSON(value) (§8). */
  canonical: boolean;
}

const BOM = [0xef, 0xbb, 0xbf] as const;
const CR = 0x0d;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * evidence-format.md §8 for one line: bytes, UTF-8, JSON, object, canonical form. Returns
 * undefined when the line cannot be read as an object at all. A BOM or a trailing CR is
 * reported and then set aside, so one stray byte yields one finding, not a cascade.
 */
export function decodeLine(raw: RawLine, sink: FindingCollector): DecodedLine | undefined {
  const at = raw.number;
  if (!raw.terminated) sink.add('missing_final_newline', at, 'the last line does not end in \\n');
  if (raw.tooLong) {
    sink.add('line_too_long', at, `line is ${raw.length} bytes, over the 1 MiB limit; not parsed`);
    return undefined;
  }
  let bytes = raw.bytes;
  if (bytes.length === 0) {
    sink.add('blank_line', at, 'empty line; every line holds one JSON object');
    return undefined;
  }
  if (bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2]) {
    sink.add('byte_order_mark', at, 'line starts with a UTF-8 byte order mark');
    bytes = bytes.subarray(3);
  }
  if (bytes.includes(CR)) {
    sink.add('carriage_return', at, 'line holds a carriage return (CR) byte');
    if (bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, -1);
  }
  if (bytes.length === 0) {
    sink.add('blank_line', at, 'line is empty apart from a BOM or CR');
    return undefined;
  }

  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    sink.add('invalid_utf8', at, 'line is not valid UTF-8');
    return undefined;
  }
  if (nestsDeeperThan(text, MAX_NESTING_DEPTH)) {
    sink.add(
      'nesting_too_deep',
      at,
      `line nests arrays or objects more than ${MAX_NESTING_DEPTH} deep (the format needs 3); not parsed`,
    );
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    sink.add('invalid_json', at, `line is not JSON: ${(error as Error).message}`);
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    sink.add(
      'not_an_object',
      at,
      `line is JSON ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}, not an object`,
    );
    return undefined;
  }
  const canonical = checkCanonicalForm(at, text, value, sink);
  return { number: at, text, value: value as Record<string, unknown>, canonical };
}

/** A `\\u` escape of a UTF-16 surrogate: the only way a lone one gets into fatally decoded UTF-8 text. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * The fast proof of §8 for the usual line: JSON.stringify writes numbers and well-formed
 * strings exactly as RFC 8785 does, so when it reproduces the text and every object's keys
 * are already in code-unit order, the text is CJSON(value). When this cannot prove it
 * (integer-like keys, which V8 reorders; surrogate escapes; a real difference), the full
 * check decides and names the problem.
 */
function provablyCanonical(text: string, value: object): boolean {
  return !SURROGATE_ESCAPE.test(text) && JSON.stringify(value) === text && keysInOrder(value);
}

function keysInOrder(value: object): boolean {
  if (Array.isArray(value)) return value.every((item) => !isContainer(item) || keysInOrder(item));
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    const child = (value as Record<string, unknown>)[key];
    if (isContainer(child) && !keysInOrder(child)) return false;
  }
  return true;
}

const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null;

/** §8: the line must be byte-identical to CJSON(JSON.parse(line)). */
function checkCanonicalForm(at: number, text: string, value: object, sink: FindingCollector): boolean {
  if (provablyCanonical(text, value)) return true;
  const problem = findCanonicalProblem(value);
  if (problem?.kind === 'lone_surrogate') {
    sink.add(
      'lone_surrogate',
      at,
      `a lone surrogate at ${problem.path || '/'}; the line has no canonical form`,
    );
    return false;
  }
  if (problem) {
    // JSON.parse yields only plain data; the one other way out is a number beyond double range.
    sink.add(
      'non_canonical_line',
      at,
      `a number at ${problem.path || '/'} is not finite (it overflows a double)`,
    );
    return false;
  }
  const canonical = cjson(value);
  if (canonical === text) return true;
  let offset = 0;
  while (offset < text.length && text[offset] === canonical[offset]) offset++;
  sink.add(
    'non_canonical_line',
    at,
    `line is not in RFC 8785 canonical form (first difference at character ${offset}: duplicate keys, key order, spacing, escapes or number form)`,
  );
  return false;
}
