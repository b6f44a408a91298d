/**
 * What `--print-config` and configuration errors may show of a value. A URL can carry a
 * password (`postgres://svc:PASSWORD@db/svc`, `?password=`): that part is replaced, the rest
 * (who, where) stays, since it is what an operator checks. Redaction errs on the side of
 * hiding: anything between `://` and the last `@` that has a `:` loses what follows the `:`.
 */
export const REDACTED = '<redacted>';

const SCHEME = /[A-Za-z][A-Za-z0-9+.-]*:\/\//g;
const SECRET_PARAM = /([?&;](?:password|passwd|pwd|pass|secret|token|api[_-]?key|sslpassword)=)[^&#;\s]*/gi;

export function redactText(text: string): string {
  let out = '';
  let from = 0;
  const starts = [...text.matchAll(SCHEME)].map((m) => (m.index ?? 0) + m[0].length);
  for (const [i, start] of starts.entries()) {
    // The URL runs to whitespace or the next URL; its userinfo to the last `@` in that run.
    const next = starts[i + 1] ?? text.length;
    const space = text.slice(start, next).search(/\s/);
    const end = space < 0 ? next : start + space;
    const at = text.lastIndexOf('@', end - 1);
    out += text.slice(from, start);
    from = start;
    if (at < start) continue;
    const colon = text.indexOf(':', start);
    if (colon < 0 || colon > at) continue;
    out += `${text.slice(start, colon + 1)}${REDACTED}`;
    from = at;
  }
  return (out + text.slice(from)).replace(SECRET_PARAM, `$1${REDACTED}`);
}
