/**
 * PostgreSQL connection URLs as operators pass them (`--store`, `SVC_STORE`). The URL may
 * carry a password, so nothing the product prints or logs shows it: every message names
 * the store through `redactUrl`.
 */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** The URL with any password (in the authority or a `password=` parameter) replaced by `***`. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Unparseable: still never echo what could be a password after `:` in the authority.
    return url.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@').replace(/(password=)[^&]*/gi, '$1***');
  }
  if (parsed.password) parsed.password = '***';
  for (const key of [...parsed.searchParams.keys()]) {
    if (key.toLowerCase() === 'password') parsed.searchParams.set(key, '***');
  }
  return parsed.toString();
}

/** Remove every occurrence of the URL's password from a message (errors from the driver). */
export function redactSecrets(message: string, url: string): string {
  let out = message.split(url).join(redactUrl(url));
  for (const password of passwordsOf(url)) out = out.split(password).join('***');
  return out;
}

/** The password as written (percent-encoded) and as sent, from the authority and the query. */
function passwordsOf(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const found = new Set<string>();
  if (parsed.password) {
    found.add(parsed.password);
    try {
      found.add(decodeURIComponent(parsed.password));
    } catch {
      // a malformed escape: the encoded form above is what appears
    }
  }
  for (const [key, value] of parsed.searchParams) {
    if (key.toLowerCase() === 'password' && value) found.add(value);
  }
  return [...found];
}
