/**
 * How deep a line may nest arrays and objects. The format itself needs 3 (an anchor's
 * `witnesses` array of objects); anything deeper already breaks the closed schema, so the
 * limit only decides where the verifier stops reading, never whether a valid file passes.
 * It leaves room for the recursive checks after JSON.parse (canonical key order, RFC 8785,
 * the schema), which must never meet a structure deep enough to exhaust the stack.
 */
export const MAX_NESTING_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * True when `text` opens more than `limit` arrays or objects inside one another, counted
 * before JSON.parse builds anything: a 1 MiB line nested 500,000 deep would otherwise cost
 * well over 100 MiB of heap and overflow every recursive walk. Brackets inside strings do
 * not count; the string bodies are skipped with indexOf, so the usual line (mostly hex in
 * strings) costs a few structural characters. Malformed JSON is JSON.parse's to report:
 * this only has to be right about the depth of text that parses.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Depth can only pass the limit with more opening brackets than the limit; the usual line
  // has two or three, found by a native search, so the walk below runs only on odd lines.
  if (openings(text, '{', limit) + openings(text, '[', limit) <= limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return false; // an unterminated string: not JSON, and nothing deeper follows
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** How many times `char` occurs in `text`, counting no further than `limit` + 1. */
function openings(text: string, char: string, limit: number): number {
  let count = 0;
  for (let at = text.indexOf(char); at >= 0 && count <= limit; at = text.indexOf(char, at + 1)) count++;
  return count;
}

/** Index of the quote that closes the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at > 0) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}
