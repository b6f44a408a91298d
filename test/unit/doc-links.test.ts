import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { headingAnchors, relativeLinks } from '../helpers/doc-links.js';

describe('GitHub heading anchors', () => {
  it('follows github-slugger: rendered text, punctuation dropped, spaces to dashes, repeats numbered', () => {
    const md = [
      '# Timestamps and witnesses: `svc witness`, `--tsa-url`, `--witness`',
      '## Approval channels: `POST /approvals/{channel}/callback`',
      '### `svc integration-ops surfaces | check | rotate | revoke`',
      '## 6.1 Timestamps (RFC 3161)',
      "## Trusting the console's certificate",
      '## Trusting the console’s certificate',
      '## See [the API](api.md) **now**',
      '```sh',
      '# a comment in code is no heading',
      '```',
      '## Évidence & ünïcode_x',
    ].join('\n');
    // each expected value is what github-slugger 2 gives for the heading's text
    expect([...headingAnchors(md)]).toEqual([
      'timestamps-and-witnesses-svc-witness---tsa-url---witness',
      'approval-channels-post-approvalschannelcallback',
      'svc-integration-ops-surfaces--check--rotate--revoke',
      '61-timestamps-rfc-3161',
      'trusting-the-consoles-certificate',
      'trusting-the-consoles-certificate-1',
      'see-the-api-now',
      'évidence--ünïcode_x',
    ]);
  });

  it('finds links and images outside code, and leaves sites alone', () => {
    const md = [
      'See [a](#x), [b](cli.md#svc-init) and ![c](../test/p.png).', // 1
      '`[not](a-link.md)` and [site](https://cerbos.dev)', // 2
      '```text', // 3
      '[inside](code.md)', // 4
      '```', // 5
      '[d](../SECURITY.md)', // 6
    ].join('\n');
    expect(relativeLinks(md)).toEqual([
      { line: 1, path: '', anchor: 'x' },
      { line: 1, path: 'cli.md', anchor: 'svc-init' },
      { line: 1, path: '../test/p.png', anchor: undefined },
      { line: 6, path: '../SECURITY.md', anchor: undefined },
    ]);
  });
});

describe('the README and the manual link only to what exists', () => {
  const docs = join(ROOT, 'docs');
  const pages = [
    join(ROOT, 'README.md'),
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(docs, f)),
  ];

  it('every relative link names a file of the repository, and every anchor a heading of its page', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      const from = relative(ROOT, page);
      for (const link of relativeLinks(readFileSync(page, 'utf8'))) {
        checked++;
        const target = link.path === '' ? page : join(dirname(page), link.path);
        if (!existsSync(target)) {
          broken.push(`${from}:${link.line}: ${link.path} does not exist`);
          continue;
        }
        if (link.anchor === undefined) continue;
        if (!target.endsWith('.md') || statSync(target).isDirectory()) {
          broken.push(`${from}:${link.line}: #${link.anchor} points into ${link.path}, not a Markdown page`);
          continue;
        }
        if (!headingAnchors(readFileSync(target, 'utf8')).has(link.anchor)) {
          broken.push(`${from}:${link.line}: ${relative(ROOT, target)} has no heading #${link.anchor}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });

  it('links nothing outside the repository (the spec beside a checkout is not in a clone)', () => {
    const outside: string[] = [];
    for (const page of pages) {
      for (const link of relativeLinks(readFileSync(page, 'utf8'))) {
        const target = join(dirname(page), link.path);
        if (relative(ROOT, target).startsWith('..')) {
          outside.push(`${relative(ROOT, page)}:${link.line}: ${link.path}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });
});

describe('what svc tells its users to read', () => {
  /** Every file of src/ and commands/ that is code, with its text. */
  const sources = (): { file: string; text: string }[] => {
    const out: { file: string; text: string }[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) walk(path);
        else if (/\.(ts|tsx|mjs|js)$/.test(e.name))
          out.push({ file: relative(ROOT, path), text: readFileSync(path, 'utf8') });
      }
    };
    walk(join(ROOT, 'src'));
    walk(join(ROOT, 'commands'));
    return out;
  };

  it('points at a page and section of the manual that exist, never at a README section', () => {
    const wrong: string[] = [];
    let pointers = 0;
    for (const { file, text } of sources()) {
      // "see README "Backup and restore"", "(README: TLS)", "in the README for the format"
      for (const m of text.matchAll(/README(?:\.md)?\s*(?::|"|“)|(?:in|see) the README\b/g)) {
        wrong.push(`${file}: ${text.slice(m.index, m.index + 60).split('\n')[0]}`);
      }
      for (const m of text.matchAll(/docs\/([\w-]+\.md) "([^"]+)"/g)) {
        pointers++;
        const page = join(ROOT, 'docs', m[1]!);
        const anchor = [...headingAnchors(`# ${m[2]!}`)][0]!;
        if (!existsSync(page)) wrong.push(`${file}: docs/${m[1]} does not exist`);
        else if (!headingAnchors(readFileSync(page, 'utf8')).has(anchor)) {
          wrong.push(`${file}: docs/${m[1]} has no section "${m[2]}"`);
        }
      }
    }
    expect(pointers).toBeGreaterThanOrEqual(5);
    expect(wrong).toEqual([]);
  });
});
