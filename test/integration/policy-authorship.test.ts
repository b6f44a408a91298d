import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDeployment } from '../../src/provisioning/apply.js';
import { DeploymentDocument } from '../../src/provisioning/deployment-document.js';
import { setPolicy } from '../../src/provisioning/policy.js';
import { registryDir, type RegistryDir } from '../helpers/registry-dir.js';

const PERMIT = 'permit (principal, action, resource);\n';

/**
 * Who the history names for each way a policy is written from this machine: the OS user of
 * the process, with `svc policy set`'s message, or `applied from FILE` for `svc apply` (and
 * the quickstart, which applies its demo document).
 */
describe('the author and message a policy change records', () => {
  let r: RegistryDir;
  const me = userInfo().username;
  beforeEach(async () => {
    r = await registryDir();
  });
  afterEach(async () => r.close());

  it('svc policy set: the OS user, and the message trimmed (none when empty)', async () => {
    await setPolicy(r.store, { tenantId: 'acme', text: PERMIT, source: 'p', now: r.now, message: '  why  ' });
    await setPolicy(r.store, {
      tenantId: 'acme',
      text: `// 2\n${PERMIT}`,
      source: 'p',
      now: r.now,
      message: ' ',
    });
    expect((await r.store.policies.history('acme', { limit: 5 })).map((v) => [v.setBy, v.message])).toEqual([
      [me, null],
      [me, 'why'],
    ]);
    await expect(
      setPolicy(r.store, {
        tenantId: 'acme',
        text: `// 3\n${PERMIT}`,
        source: 'p',
        now: r.now,
        message: '\ud800',
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', field: 'message' });
    expect(await r.store.policies.history('acme', { limit: 5 })).toHaveLength(2);
  });

  it('svc apply: the OS user, and the document it came from', async () => {
    const file = join(r.root, 'deploy.yaml');
    writeFileSync(file, `version: 1\ntenant: acme\npolicy:\n  text: "${PERMIT.trim()}"\n`);
    await applyDeployment(r.store, DeploymentDocument.read(file), { now: r.now });
    expect(await r.store.policies.history('acme', { limit: 5 })).toMatchObject([
      { version: 1, setBy: me, message: `applied from ${file}` },
    ]);
  });
});
