/**
 * Finds secrets in what a test captured (daemon logs, CLI and daemon output, response
 * bodies). Two kinds of rule: the secrets a test used, remembered by value (and matched
 * also URL- and base64-encoded, the forms a careless log line would print), and shapes
 * that must never appear at all in the scanned text (a token's secret part, a PEM private key).
 */
export interface Leak {
  source: string;
  label: string;
  /** where in the text, with the secret itself masked */
  excerpt: string;
}

const TOKEN = /svct_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/g;
const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )?PRIVATE KEY-----/g;

/** Secrets shorter than this are not remembered: they would match by accident. */
const MIN_SECRET = 8;

export class LeakScan {
  private readonly secrets = new Map<string, string>();

  /** Remember a secret the test used; `label` says what it is without repeating it. */
  remember(value: string, label: string): void {
    if (value.length < MIN_SECRET) return;
    for (const form of [value, encodeURIComponent(value), Buffer.from(value).toString('base64')]) {
      if (!this.secrets.has(form)) this.secrets.set(form, label);
    }
  }

  /** Every leak in `text`. `tokens: false` where printing a token is the point (`svc token issue`). */
  scan(text: string, source: string, opts: { tokens?: boolean } = {}): Leak[] {
    const leaks: Leak[] = [];
    const at = (index: number, length: number, label: string) =>
      leaks.push({
        source,
        label,
        excerpt: `${text.slice(Math.max(0, index - 40), index)}[${length} chars]${text.slice(index + length, index + length + 40)}`,
      });
    for (const [value, label] of this.secrets) {
      if (opts.tokens === false && TOKEN.test(value)) {
        TOKEN.lastIndex = 0;
        continue;
      }
      TOKEN.lastIndex = 0;
      const i = text.indexOf(value);
      if (i >= 0) at(i, value.length, label);
    }
    const shapes: [RegExp, string, boolean][] = [
      [TOKEN, 'a bearer token', opts.tokens !== false],
      [PRIVATE_KEY, 'a PEM private key', true],
    ];
    for (const [re, label, on] of shapes) {
      if (!on) continue;
      re.lastIndex = 0;
      for (const m of text.matchAll(re)) at(m.index, m[0].length, label);
    }
    return leaks;
  }

  /** Throw, naming each leak but never printing the secret, when `text` holds one. */
  check(text: string, source: string, opts: { tokens?: boolean } = {}): void {
    const leaks = this.scan(text, source, opts);
    if (leaks.length === 0) return;
    throw new Error(
      `secret leaked:\n${leaks.map((l) => `  ${l.label} in ${l.source}: …${l.excerpt}…`).join('\n')}`,
    );
  }
}

/** One scanner per test file (vitest isolates modules per file). */
export const leakScan = new LeakScan();
