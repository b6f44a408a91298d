/**
 * The known command closest to what was typed, by edit distance over the words as typed
 * (`aprovals list` → `approvals list`), or undefined when none is near enough to be a typo.
 */
export function closestCommand(typed: string, known: readonly string[]): string | undefined {
  const words = (id: string) => id.replaceAll(':', ' ');
  const wanted = words(typed);
  let best: { id: string; distance: number } | undefined;
  for (const id of known) {
    const distance = editDistance(wanted, words(id));
    if (best === undefined || distance < best.distance) best = { id, distance };
  }
  // A third of the typed length: a slip of a letter or two, not a different command.
  if (best === undefined || best.distance > Math.max(2, Math.floor(wanted.length / 3))) return undefined;
  return words(best.id);
}

/** The known word closest to what was typed (a config key, a flag), or undefined when none is near. */
export function closestWord(typed: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const word of known) {
    const distance = editDistance(typed, word);
    if (best === undefined || distance < best.distance) best = { word, distance };
  }
  if (best === undefined || best.distance > Math.max(2, Math.floor(typed.length / 3))) return undefined;
  return best.word;
}

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
