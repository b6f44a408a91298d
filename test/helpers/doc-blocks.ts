import { readFileSync } from 'node:fs';
import { join } from 'node:path';

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

/** A fixed TCP port a block names: `HOST:PORT` on a loopback or wildcard host, or `--port PORT`. */
const FIXED_PORT = /(?<=\b(?:127\.0\.0\.1|0\.0\.0\.0|localhost):|--port[ =])([1-9]\d{3,4})\b/g;

/**
 * The fixed ports the blocks that run name, in order of first use. The README tells its reader
 * to open them (8092 MCP, 8093 console ...): a doc test that binds them would fail, or break
 * the reader's walk-through, on a machine where they are taken.
 */
export function fixedPorts(blocks: readonly ShellBlock[]): number[] {
  const ports = new Set<number>();
  for (const b of blocks) {
    if (b.mode === 'skip') continue;
    for (const m of b.code.matchAll(FIXED_PORT)) ports.add(Number(m[1]));
  }
  return [...ports];
}

/** The blocks with each fixed port replaced by the doc test's own (a port not in `map` stays). */
export function withPorts(blocks: readonly ShellBlock[], map: ReadonlyMap<number, number>): ShellBlock[] {
  return blocks.map((b) => ({
    ...b,
    code: b.code.replace(FIXED_PORT, (p) => String(map.get(Number(p)) ?? p)),
  }));
}

/**
 * The pages the manual's index (`docs/README.md`) links, in order of first mention: the order
 * the doc test runs them in, after README.md. Only pages beside the index count (`cli.md`,
 * `api.md#x`); a link out of `docs/` (`../SECURITY.md`) or to a site is not a page of the
 * manual.
 */
export function indexedPages(index: string): string[] {
  const pages: string[] = [];
  for (const m of index.matchAll(/\]\(([\w.-]+\.md)(?:#[^)]*)?\)/g)) {
    if (m[1] !== 'README.md' && !pages.includes(m[1]!)) pages.push(m[1]!);
  }
  return pages;
}

/** README.md, then the manual's pages in the order of its index: paths relative to `root`. */
export function manualPages(root: string): string[] {
  const index = readFileSync(join(root, 'docs', 'README.md'), 'utf8');
  return ['README.md', ...indexedPages(index).map((p) => `docs/${p}`)];
}
