import { describe, expect, it } from 'vitest';
import { shellBlocks } from '../helpers/doc-blocks.js';

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
