import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';

/**
 * The most lines a diff may add and remove together. Myers' algorithm costs about
 * (lines of both texts) x (lines changed), so two unrelated large texts would hold a core
 * for seconds; past this bound the diff is refused and each text can be read whole instead.
 */
export const MAX_CHANGED_LINES = 2000;

/** One side of a diff: its name in the `---`/`+++` line, a note after a tab, and the text. */
export interface DiffSide {
  name: string;
  note: string;
  text: string;
}

/**
 * A unified diff of two texts with three lines of context (what `diff -u` prints): the
 * `---`/`+++` lines, then one `@@` hunk per run of changes. Empty when the texts are equal;
 * undefined when more than MAX_CHANGED_LINES lines differ.
 */
export function unifiedDiff(from: DiffSide, to: DiffSide): string | undefined {
  if (from.text === to.text) return '';
  return createTwoFilesPatch(from.name, to.name, from.text, to.text, from.note, to.note, {
    context: 3,
    headerOptions: FILE_HEADERS_ONLY,
    maxEditLength: MAX_CHANGED_LINES,
  });
}
