import type { Sha256 } from '../crypto-provider.js';
import type { LineKind } from '../export-line.js';
import { entryFacts, type EntryFacts } from './entry-facts.js';
import type { JsonObject } from './field-readers.js';
import type { Finding, FindingCollector } from './findings.js';
import { decodeLine } from './line-decoder.js';
import type { RawLine } from './line-reader.js';
import { checkLineSchema } from './line-schema.js';

/**
 * One line after the checks that need no other line: bytes, UTF-8, JSON, canonical form,
 * schema, and an entry's recomputed leaf. This is the costly part of verification and the
 * part that can run anywhere, in any order; the cross-line checks then take the lines in
 * file order (ExportVerifier.consume).
 */
export interface InspectedLine {
  number: number;
  findings: Finding[];
  /** undefined when the line could not be read as an object of a known type */
  kind?: LineKind | undefined;
  /** header and anchor lines */
  value?: JsonObject | undefined;
  entry?: EntryFacts | undefined;
}

class FindingList implements FindingCollector {
  readonly findings: Finding[] = [];
  add(code: Finding['code'], line: number | null, message: string): void {
    this.findings.push({ code, line, message });
  }
}

export function inspectLine(raw: RawLine, sha256: Sha256): InspectedLine {
  const list = new FindingList();
  const line = decodeLine(raw, list);
  if (line === undefined) return { number: raw.number, findings: list.findings };
  const { kind, valid } = checkLineSchema(line, list);
  if (kind === 'entry') {
    return { number: raw.number, findings: list.findings, kind, entry: entryFacts(line, valid, sha256) };
  }
  return {
    number: raw.number,
    findings: list.findings,
    kind,
    value: kind === undefined ? undefined : line.value,
  };
}
