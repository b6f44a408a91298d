import { cjson } from '../cjson.js';
import { REDACTION_CAPABILITY, redactionDeviations } from '../tombstone.js';
import { asObject, asSafeInteger, type JsonObject } from './field-readers.js';
import type { FindingSink } from './findings.js';

/**
 * evidence-format.md §7, streamed. Redacted entries come before the redaction record that
 * carries their tombstone, so a range is "open" from its first redacted entry until its
 * record; memory is the open ranges plus the closed ones merged into disjoint intervals
 * (one interval for the usual oldest-first retention).
 */

export type EntryRole = 'plain' | 'redacted' | 'record';

interface Range {
  from: number;
  to: number;
}

interface OpenRange extends Range {
  firstLine: number;
  /** The sequence the next redacted entry of this range should carry. */
  next: number;
  /** A gap in the range was already reported; the record need not repeat it. */
  gapReported: boolean;
}

export class RedactionTracker {
  readonly #open = new Map<string, OpenRange>();
  readonly #closed: Range[] = [];
  redactedEntries = 0;
  ranges = 0;

  constructor(private readonly sink: FindingSink) {}

  /** Classify an entry and check its part in redaction; the caller takes a redacted leaf as written. */
  observe(entry: JsonObject, sequence: number | undefined, at: number): EntryRole {
    if (sequence === undefined) return 'plain';
    if (entry.tombstone === undefined) {
      this.#checkNotInsideOpenRange(sequence, at);
      return 'plain';
    }
    const tombstone = asObject(entry.tombstone);
    const from = asSafeInteger(tombstone?.from_sequence);
    const to = asSafeInteger(tombstone?.to_sequence);
    if (tombstone === undefined || from === undefined || to === undefined) return 'plain'; // schema reported it
    if (from < 1 || from > to) {
      this.sink.add(
        'tombstone_malformed',
        at,
        `tombstone range ${from}..${to} is not 1 <= from_sequence <= to_sequence`,
      );
      return 'plain';
    }
    let key: string;
    try {
      key = cjson(tombstone);
    } catch {
      return 'plain'; // a lone surrogate, already reported
    }
    if (sequence < from) {
      this.sink.add(
        'tombstone_below_range',
        at,
        `entry ${sequence} carries a tombstone for ${from}..${to}, above itself`,
      );
      return 'plain';
    }
    if (sequence <= to) return this.#redacted(entry, tombstone, key, { from, to }, sequence, at);
    return this.#record(entry, key, { from, to }, at);
  }

  /** End of file: every open range lacks its record. */
  finish(): void {
    for (const range of this.#open.values()) {
      this.sink.add(
        'redaction_record_missing',
        range.firstLine,
        `entries ${range.from}..${range.to} carry a tombstone but no later redaction record carries the same tombstone`,
      );
    }
  }

  #redacted(
    entry: JsonObject,
    tombstone: JsonObject,
    key: string,
    range: Range,
    sequence: number,
    at: number,
  ): EntryRole {
    const leftIn = redactionDeviations(entry, tombstone);
    if (leftIn.length > 0) {
      this.sink.add(
        'redacted_content_present',
        at,
        `redacted entry ${sequence}: ${leftIn.join(', ')} not the value section 7 fixes (empty content, record_hash of 64 zeros, times equal to the tombstone's removed_at)`,
      );
    }
    let open = this.#open.get(key);
    if (open === undefined) {
      this.#checkOverlap(range, at);
      open = { ...range, firstLine: at, next: range.from, gapReported: false };
      this.#open.set(key, open);
    }
    if (sequence > open.next) {
      this.sink.add(
        'redaction_incomplete',
        at,
        `entries ${open.next}..${sequence - 1} of range ${range.from}..${range.to} are not redacted under it`,
      );
      open.gapReported = true;
    }
    open.next = Math.max(open.next, sequence + 1);
    this.redactedEntries += 1;
    return 'redacted';
  }

  #record(entry: JsonObject, key: string, range: Range, at: number): EntryRole {
    if (entry.capability !== REDACTION_CAPABILITY || entry.allowed !== true) {
      this.sink.add(
        'redaction_record_invalid',
        at,
        `an entry carrying a tombstone for ${range.from}..${range.to} must be an allowed ${REDACTION_CAPABILITY} entry`,
      );
    }
    const open = this.#open.get(key);
    if (open === undefined) {
      this.#checkOverlap(range, at);
      this.sink.add(
        'redaction_incomplete',
        at,
        `redaction record for ${range.from}..${range.to}, but no entry in the range carries its tombstone`,
      );
    } else {
      if (open.next <= range.to && !open.gapReported) {
        this.sink.add(
          'redaction_incomplete',
          at,
          `entries ${open.next}..${range.to} of range ${range.from}..${range.to} are not redacted under it`,
        );
      }
      this.#open.delete(key);
    }
    this.#close(range);
    this.ranges += 1;
    return 'record';
  }

  #checkNotInsideOpenRange(sequence: number, at: number): void {
    for (const open of this.#open.values()) {
      if (sequence >= open.from && sequence <= open.to) {
        this.sink.add(
          'redaction_incomplete',
          at,
          `entry ${sequence} lies in redaction range ${open.from}..${open.to} but carries no tombstone`,
        );
        open.gapReported = true;
        if (sequence >= open.next) open.next = sequence + 1;
      }
    }
  }

  #checkOverlap(range: Range, at: number): void {
    const overlaps = (other: Range): boolean => other.from <= range.to && range.from <= other.to;
    const other = [...this.#open.values()].find(overlaps) ?? this.#closed.find(overlaps);
    if (other) {
      this.sink.add(
        'tombstone_overlap',
        at,
        `redaction range ${range.from}..${range.to} overlaps ${other.from}..${other.to}`,
      );
    }
  }

  #close(range: Range): void {
    this.#closed.push({ ...range });
    this.#closed.sort((a, b) => a.from - b.from);
    // Merge touching intervals so the usual oldest-first retention stays one interval.
    for (let i = this.#closed.length - 1; i > 0; i--) {
      const previous = this.#closed[i - 1]!;
      const current = this.#closed[i]!;
      if (previous.to + 1 >= current.from) {
        previous.to = Math.max(previous.to, current.to);
        this.#closed.splice(i, 1);
      }
    }
  }
}
