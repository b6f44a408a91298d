import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import {
  fixedPorts,
  indexedPages,
  manualPages,
  shellBlocks,
  withPorts,
  type ShellBlock,
} from '../helpers/doc-blocks.js';

describe('README shell blocks for the doc test', () => {
  it('finds sh blocks in order with their line and directive; output and data fences are not run', () => {
    const md = [
      '# t', // 1
      '<!-- doctest: skip -->', // 2
      '```sh', // 3
      'npm install', // 4
      '```', // 5
      '```text', // 6
      'svc output', // 7
      '```', // 8
      '<!-- doctest: background -->', // 9
      '', // 10: prettier puts a blank line here
      '```sh', // 11
      'svc daemon start', // 12
      '```', // 13
      '```json', // 14
      '{}', // 15
      '```', // 16
      '````sh', // 17
      'cat <<EOF', // 18
      '```', // 19: a shorter fence inside does not close it
      'EOF', // 20
      '````', // 21
      'Some text.', // 22
      '', // 23
      '```sh', // 24
      'svc approvals list', // 25
      '```', // 26
    ].join('\n');
    expect(shellBlocks(md)).toEqual([
      { line: 3, code: 'npm install', mode: 'skip' },
      { line: 11, code: 'svc daemon start', mode: 'background' },
      { line: 17, code: 'cat <<EOF\n```\nEOF', mode: 'run' },
      { line: 24, code: 'svc approvals list', mode: 'run' },
    ]);
  });
});

describe('the doc test runs on ports of its own', () => {
  // the README and the manual run in one session: their ports are one set
  const readme = manualPages(ROOT).flatMap((page) => shellBlocks(readFileSync(join(ROOT, page), 'utf8')));

  it("finds the manual's fixed ports (MCP, console) in the blocks it runs, not in skipped ones", () => {
    const ports = fixedPorts(readme);
    expect(ports).toEqual(expect.arrayContaining([8092, 8093]));
    // 8090/8091 and 8095 appear only in blocks the doc test skips
    expect(ports).not.toContain(8095);
    expect(ports).not.toContain(8090);
  });

  it('rewrites every one of them, in HOST:PORT and --port forms, and nothing else', () => {
    const blocks: ShellBlock[] = [
      { line: 1, code: 'svc mcp --http --port 8092\nsvc x --port=8092', mode: 'background' },
      {
        line: 5,
        code: 'curl http://127.0.0.1:8092/mcp # order 8092\nsvc console start --listen 0.0.0.0:8093',
        mode: 'run',
      },
      { line: 9, code: 'svc daemon start --listen 127.0.0.1:0', mode: 'run' },
    ];
    const map = new Map(fixedPorts(blocks).map((p, i) => [p, 40001 + i]));
    expect([...map.keys()]).toEqual([8092, 8093]);
    expect(withPorts(blocks, map).map((b) => b.code)).toEqual([
      'svc mcp --http --port 40001\nsvc x --port=40001',
      'curl http://127.0.0.1:40001/mcp # order 8092\nsvc console start --listen 0.0.0.0:40002',
      'svc daemon start --listen 127.0.0.1:0',
    ]);
    const all = new Map(fixedPorts(readme).map((p) => [p, 1]));
    const rewritten = withPorts(readme, all);
    expect(fixedPorts(rewritten)).toEqual([]);
    for (const b of rewritten.filter((x) => x.mode !== 'skip')) {
      expect(b.code, `README.md:${b.line}`).not.toMatch(/127\.0\.0\.1:(8092|8093)\b|--port 809\d/);
    }
  });
});

describe("the manual's running order", () => {
  it('is the order in which the index first links each page beside it', () => {
    const index = [
      '# The svc manual',
      '[README.md](../README.md) starts a demo.',
      '1. [Commands](cli.md): every command.',
      '2. [Evidence](evidence.md#the-export-format), then [again](cli.md#svc-init).',
      '3. [Operations](operations.md). See [SECURITY.md](../SECURITY.md) and [a site](https://x.org/a.md).',
      'A [self link](README.md).',
    ].join('\n');
    expect(indexedPages(index)).toEqual(['cli.md', 'evidence.md', 'operations.md']);
  });

  it('starts with README.md and names only pages of docs/ that exist', () => {
    const pages = manualPages(ROOT);
    expect(pages[0]).toBe('README.md');
    expect(pages.length).toBeGreaterThan(5);
    for (const page of pages.slice(1)) {
      expect(page).toMatch(/^docs\/[\w.-]+\.md$/);
      expect(() => readFileSync(join(ROOT, page), 'utf8'), page).not.toThrow();
    }
  });
});
