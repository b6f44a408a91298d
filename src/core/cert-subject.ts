import { invalidField } from './errors.js';

/**
 * Certificate subjects identify actors in mutual-TLS mode. Both sides become one form, an
 * ordered list of `TYPE=value` lines, compared byte for byte:
 * - the operator's text is normalised once, when the actor is registered (`normalizeSubject`);
 * - a certificate's subject is never normalised: its attributes are read from the DER, in
 *   order, and written out exactly (`subjectOfAttributes`); what the text form cannot say
 *   (a multi-valued RDN, a value that is not a character string, a control character) names
 *   no actor at all.
 * So `CN=agent-x ` (a trailing space), another case or an extra attribute is another subject.
 */

/** Attribute type names, as OpenSSL's short names upper-cased (what earlier versions stored). */
const NAME_OF_OID: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.4': 'SN',
  '2.5.4.5': 'SERIALNUMBER',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.12': 'TITLE',
  '2.5.4.42': 'GN',
  '2.5.4.43': 'INITIALS',
  '2.5.4.44': 'GENERATIONQUALIFIER',
  '2.5.4.46': 'DNQUALIFIER',
  '2.5.4.65': 'PSEUDONYM',
  '2.5.4.97': 'ORGANIZATIONIDENTIFIER',
  '1.2.840.113549.1.9.1': 'EMAILADDRESS',
  '0.9.2342.19200300.100.1.1': 'UID',
  '0.9.2342.19200300.100.1.25': 'DC',
};

/** Other spellings an operator may write for the same attribute type. */
const ALIASES: Record<string, string> = {
  E: 'EMAILADDRESS',
  EMAIL: 'EMAILADDRESS',
  GIVENNAME: 'GN',
  SURNAME: 'SN',
  T: 'TITLE',
  S: 'ST',
  DOMAINCOMPONENT: 'DC',
  USERID: 'UID',
};

const TYPE_NAME = /^[A-Za-z][A-Za-z0-9]*$/;
const OID = /^[0-2](\.(0|[1-9][0-9]*))+$/;
/** A control character (C0 or DEL): the stored form puts one attribute per line. */
const hasControl = (value: string): boolean => {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
};

const EXPECTED =
  'a distinguished name such as "CN=agent-1, O=Acme" (a literal comma, or a kept space, escaped with \\)';

/** One character of the operator's text, and whether it was escaped (kept as is). */
type Char = { c: string; escaped: boolean };

/** Whitespace at either end that was not escaped is the operator's layout, not the value. */
function trimmed(chars: Char[]): Char[] {
  let start = 0;
  let end = chars.length;
  while (start < end && !chars[start]!.escaped && /\s/.test(chars[start]!.c)) start++;
  while (end > start && !chars[end - 1]!.escaped && /\s/.test(chars[end - 1]!.c)) end--;
  return chars.slice(start, end);
}

const text = (chars: Char[]) => chars.map((x) => x.c).join('');

function typeName(raw: string): string | undefined {
  if (OID.test(raw)) return NAME_OF_OID[raw] ?? raw;
  if (!TYPE_NAME.test(raw)) return undefined;
  const upper = raw.toUpperCase();
  return ALIASES[upper] ?? upper;
}

/**
 * The operator's subject text (`CN=agent-1, O=Acme`, or one attribute per line) in the
 * stored form. Types are upper-cased and aliases resolved; values keep their case, and lose
 * only unescaped whitespace at their ends (`CN=a\ ` keeps its space).
 */
export function normalizeSubject(input: string): string {
  if (input.length > 1024) throw invalidField('cert-subject', EXPECTED);
  const parts: Char[][] = [];
  let cur: Char[] = [];
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (c === '\\' && i + 1 < input.length) {
      cur.push({ c: input[++i]!, escaped: true });
    } else if (c === ',' || c === '\n') {
      parts.push(cur);
      cur = [];
    } else {
      cur.push({ c, escaped: false });
    }
  }
  parts.push(cur);
  const attrs: string[] = [];
  for (const part of parts.map(trimmed).filter((p) => p.length > 0)) {
    const eq = part.findIndex((x) => x.c === '=' && !x.escaped);
    const type = eq < 0 ? undefined : typeName(text(trimmed(part.slice(0, eq))));
    const value = eq < 0 ? '' : text(trimmed(part.slice(eq + 1)));
    if (type === undefined || value === '' || hasControl(value)) throw invalidField('cert-subject', EXPECTED);
    attrs.push(`${type}=${value}`);
  }
  if (attrs.length === 0) throw invalidField('cert-subject', EXPECTED);
  return attrs.join('\n');
}

/** One attribute of a certificate's subject, as its DER holds it. */
export interface SubjectAttribute {
  /** the attribute type's dotted OID */
  oid: string;
  /** the decoded character string; undefined when the value is not a character string */
  value: string | undefined;
}

/**
 * A certificate's subject (its RDNs, in DER order) in the stored form, exactly; undefined
 * when it cannot name an actor: empty, a multi-valued RDN, a value that is not a character
 * string, or one holding a control character.
 */
export function subjectOfAttributes(rdns: readonly (readonly SubjectAttribute[])[]): string | undefined {
  if (rdns.length === 0) return undefined;
  const lines: string[] = [];
  for (const rdn of rdns) {
    const attr = rdn.length === 1 ? rdn[0] : undefined;
    if (attr?.value === undefined || attr.value === '' || hasControl(attr.value)) return undefined;
    lines.push(`${NAME_OF_OID[attr.oid] ?? attr.oid}=${attr.value}`);
  }
  return lines.join('\n');
}
