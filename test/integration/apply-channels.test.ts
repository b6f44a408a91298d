import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDeployment, type ApplyResult } from '../../src/provisioning/apply.js';
import { addChannel } from '../../src/provisioning/channel.js';
import { DeploymentDocument } from '../../src/provisioning/deployment-document.js';
import { registryDir, type RegistryDir } from '../helpers/registry-dir.js';

const DOC = `version: 1
tenant: acme

actors:
  - id: carol
    kind: human
    roles: [approver]
    chat_user_id: U024CAROL
    collab_user_id: 29f4e3a1-carol

channels:
  - id: ops-chat
    kind: chat
    signing_secret_ref: env:CHAT_SIGNING_SECRET
  - id: ops-collab
    kind: collab
    openid_metadata: https://login.example.test/.well-known/openid-configuration
    app_id: 5c1f0a2e-app
    issuer: https://api.example.test
`;

describe('svc apply: approval channels and approver ids', () => {
  let r: RegistryDir;
  const apply = (text: string): Promise<ApplyResult> => {
    writeFileSync(join(r.root, 'deploy.yaml'), text);
    return applyDeployment(r.store, DeploymentDocument.read(join(r.root, 'deploy.yaml')), { now: r.now });
  };
  const failure = (text: string) =>
    apply(text).then(
      () => {
        throw new Error('expected the document to be refused');
      },
      (err: unknown) => err as { code: string; reason: string },
    );

  beforeEach(async () => {
    r = await registryDir();
  });
  afterEach(async () => r.close());

  it('configures the channels and maps the approver, and a second run changes nothing', async () => {
    const first = await apply(DOC);
    expect(first.changes.map((c) => `${c.kind} ${c.id} ${c.result}`)).toEqual([
      'actor carol created',
      'channel ops-chat created',
      'channel ops-collab created',
    ]);
    expect(await r.store.channels.approverFor('acme', 'chat', 'U024CAROL')).toMatchObject({ id: 'carol' });
    expect(await r.store.channels.approverFor('acme', 'collab', '29f4e3a1-carol')).toMatchObject({
      id: 'carol',
    });
    expect(await r.store.channels.get('ops-collab')).toMatchObject({
      tenantId: 'acme',
      appId: '5c1f0a2e-app',
    });
    expect((await apply(DOC)).unchanged).toBe(3);
  });

  it('refuses, before writing anything, a changed channel, an id of another tenant, and a bad entry', async () => {
    await apply(DOC);
    const changed = await failure(DOC.replace('env:CHAT_SIGNING_SECRET', 'env:OTHER'));
    expect(changed.code).toBe('conflict');
    expect(changed.reason).toMatch(/channels\[0\]\.id: channel ops-chat is configured differently/);

    await addChannel(
      r.store,
      { id: 'their-chat', tenantId: 'other', kind: 'chat', signingSecretRef: 'env:X' },
      r.now,
    );
    const theirs = await failure(`${DOC}  - id: their-chat\n    kind: chat\n    signing_secret_ref: env:X\n`);
    expect(theirs.reason).toMatch(/in use by tenant other/);
    const bad = await failure(DOC.replace('env:CHAT_SIGNING_SECRET', 'the-secret-itself'));
    expect(bad.reason).toMatch(/channels\[0\]\.signing_secret_ref/);
    const mixed = await failure(
      DOC.replace(
        '    signing_secret_ref: env:CHAT_SIGNING_SECRET',
        '    signing_secret_ref: env:A\n    app_id: x',
      ),
    );
    expect(mixed.reason).toMatch(/channels\[0\]\.app_id: not used by a chat channel/);
    expect(await r.store.channels.list('acme')).toHaveLength(2);
  });

  it('an approver id is unique in the tenant and never an email', async () => {
    const twice = await failure(
      DOC.replace(
        'collab_user_id: 29f4e3a1-carol',
        'collab_user_id: 29f4e3a1-carol\n  - id: dan\n    kind: human\n    chat_user_id: U024CAROL',
      ),
    );
    expect(twice.reason).toMatch(/actors\[1\]\.chat_user_id: chat user id U024CAROL is listed twice/);
    await apply(DOC);
    const taken = await failure(DOC.replace('id: carol', 'id: dan'));
    expect(taken.reason).toMatch(/actors\[0\]\.chat_user_id: actor carol already has this chat user id/);
    const email = await failure(
      DOC.replace('U024CAROL', 'carol@example.com').replace('id: carol', 'id: erin'),
    );
    expect(email.reason).toMatch(/chat_user_id: .*not an email/);
  });
});
