/** A fenced shell block of a Markdown file, with what the doc test does with it. */
export interface ShellBlock {
  /** 1-based line of the opening fence */
  line: number;
  code: string;
  mode: 'run' | 'background' | 'skip';
}

const DIRECTIVE = /^<!--\s*doctest:\s*(skip|background)\s*-->\s*$/;

/**
 * Every ```sh block in order. `<!-- doctest: skip -->` or `<!-- doctest: background -->` on
 * the line before a block marks it (blank lines between are allowed: prettier adds one);
 * other fences (```text for output, ```json, ```yaml) are never run.
 */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.trimStart().startsWith(fence)) end++;
    if (['sh', 'bash', 'shell'].includes(open[3]!)) {
      let before = i - 1;
      while (before >= 0 && lines[before]!.trim() === '') before--;
      const directive = DIRECTIVE.exec(lines[before] ?? '');
      blocks.push({
        line: i + 1,
        code: lines.slice(i + 1, end).join('\n'),
        mode: directive ? (directive[1] as 'skip' | 'background') : 'run',
      });
    }
    i = end;
  }
  return blocks;
}
