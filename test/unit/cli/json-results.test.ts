import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/cli.js';
import { jsonResultShapes } from '../../helpers/json-result-shapes.js';
import { committedSnapshot } from '../../helpers/snapshot-file.js';

const HOW = 'SVC_UPDATE_SNAPSHOTS=1 npx vitest run test/unit/cli/json-results.test.ts';

describe('--json results', () => {
  it('no command changes the shape of its --json result silently (test/snapshots/json-results.json)', () => {
    const now = jsonResultShapes(ROOT);
    const snapshot = committedSnapshot(join(ROOT, 'test/snapshots/json-results.json'), now, HOW);
    expect(now, `a --json result changed: if on purpose, run ${HOW} and commit the snapshot`).toEqual(
      snapshot,
    );
  });
});
