/**
 * Text for XML 1.0 documents the CLI writes (JUnit reports). Names in them come from test
 * suites anyone can write, so every value is escaped here, never concatenated raw.
 *
 * XML 1.0 cannot carry some characters at all, not even as a character reference: the C0
 * controls other than tab, line feed and carriage return, lone surrogates, U+FFFE and
 * U+FFFF. They become U+FFFD, so the document still parses and the damage is visible.
 */

// Everything outside XML 1.0's Char production (https://www.w3.org/TR/xml/#charsets).
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/gu;

const TEXT: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };
// In an attribute, tab and line breaks are kept as references: a parser would turn the
// characters themselves into spaces (attribute-value normalization).
const ATTRIBUTE: Record<string, string> = {
  ...TEXT,
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
};

/** Character data: element content. */
export function xmlText(value: string): string {
  return value.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>\r]/g, (c) => TEXT[c]!);
}

/** An attribute value, to be written between double quotes. */
export function xmlAttribute(value: string): string {
  return value.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>\r"'\t\n]/g, (c) => ATTRIBUTE[c]!);
}
