import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CredentialResolver } from '../../src/integration/credentials.js';
import { SecretBox } from '../../src/integration/secret-box.js';
import { destinationSecrets } from '../../src/notify/destination-senders.js';
import { applyDeployment, type ApplyResult } from '../../src/provisioning/apply.js';
import { DeploymentDocument } from '../../src/provisioning/deployment-document.js';
import { DataDir } from '../../src/store/data-dir.js';
import { registryDir, type RegistryDir } from '../helpers/registry-dir.js';

const DOC = `version: 1
tenant: acme

notifications: # svc notify add
  - id: ops-hook
    kind: webhook
    url: https://hooks.example.org/svc
    events: ['approval.*', access_request.created]
  - id: audit-hook
    kind: webhook
    url: https://siem.example.org/in
    events: ['*']
    secret_out: audit-hook.secret
  - id: approvers-mail
    kind: email
    url: smtp://mail.example.org:587
    from: svc@example.org
    to: [approvers@example.org]
    smtp_user: svc
    secret_file: smtp-password
    console_url: https://svc.example.org:8443
    events: [approval.requested]
    remind_after: 30m
    escalate_to: approvals-chat
  - id: approvals-chat
    kind: chat
    channel: C0123ABCD
    secret_file: bot-token
    events: ['approval.*']
`;

describe('svc apply: notification destinations', () => {
  let r: RegistryDir;
  let dir: DataDir;
  const file = (name: string) => join(r.root, name);
  const apply = async (text: string, dryRun = false): Promise<ApplyResult> => {
    writeFileSync(file('deploy.yaml'), text);
    return applyDeployment(r.store, DeploymentDocument.read(file('deploy.yaml')), {
      now: r.now,
      dir,
      dryRun,
    });
  };
  const failure = (text: string) =>
    apply(text).then(
      () => {
        throw new Error(`expected the document to be refused:\n${text}`);
      },
      (err: unknown) => err as { code: string; reason: string; field?: string },
    );
  const secretsOf = async (id: string) =>
    destinationSecrets(
      new CredentialResolver(r.store.secrets, () => SecretBox.open(r.root, { create: false })),
    )((await r.store.notify.destination('acme', id))!);
  const ids = async () => (await r.store.notify.destinations('acme')).map((d) => d.id);

  beforeEach(async () => {
    r = await registryDir();
    dir = new DataDir(r.root);
    writeFileSync(file('smtp-password'), 'smtp-pass-1\n');
    writeFileSync(file('bot-token'), 'xoxb-bot-token\n');
  });
  afterEach(async () => r.close());

  it('adds every kind with the flags of svc notify add; secrets by file; a second run changes nothing', async () => {
    const dry = await apply(DOC, true);
    expect(dry.created).toBe(4);
    expect(await ids()).toEqual([]);
    expect(existsSync(file('audit-hook.secret'))).toBe(false);

    const first = await apply(DOC);
    // The escalation target is written before the destination that names it.
    expect(first.changes.map((c) => `${c.kind} ${c.id} ${c.result}`)).toEqual([
      'notification ops-hook created',
      'notification audit-hook created',
      'notification approvals-chat created',
      'notification approvers-mail created',
    ]);
    // ops-hook's secret is shown once in the result; audit-hook's went to its file only.
    expect(Object.keys(first.secrets)).toEqual(['ops-hook']);
    expect(await secretsOf('ops-hook')).toEqual([first.secrets['ops-hook']]);
    const written = readFileSync(file('audit-hook.secret'), 'utf8').trim();
    expect(written).toMatch(/^whsec_/);
    expect(statSync(file('audit-hook.secret')).mode & 0o777).toBe(0o600);
    expect(await secretsOf('audit-hook')).toEqual([written]);
    expect(await secretsOf('approvals-chat')).toEqual(['xoxb-bot-token']);
    expect(await secretsOf('approvers-mail')).toEqual(['smtp-pass-1']);
    expect(await r.store.notify.destination('acme', 'approvers-mail')).toMatchObject({
      kind: 'email',
      url: 'smtp://mail.example.org:587',
      events: ['approval.requested'],
      remindAfterSeconds: 1800,
      escalateTo: 'approvals-chat',
    });

    const again = await apply(DOC);
    expect(again.unchanged).toBe(4);
    expect(again.secrets).toEqual({});
    expect(readFileSync(file('audit-hook.secret'), 'utf8').trim()).toBe(written);
    expect(await secretsOf('ops-hook')).toEqual([first.secrets['ops-hook']]);
  });

  it('refuses, before writing anything, a changed destination and every bad entry, naming its path', async () => {
    await apply(DOC);
    const changed = await failure(DOC.replace("events: ['*']", 'events: [decision.refused]'));
    expect(changed.code).toBe('conflict');
    expect(changed.reason).toMatch(
      /notifications\[1\]\.id: notification destination audit-hook is configured differently/,
    );

    const fresh = DOC.replaceAll('ops-hook', 'new-hook').replaceAll('audit-hook', 'new-audit');
    const cases: [string, RegExp][] = [
      [fresh.replace("events: ['*']", "events: ['aproval.*']"), /notifications\[1\]\.events: /],
      [
        fresh.replace('secret_file: bot-token', 'secret: xoxb-inline'),
        /notifications\[3\]\.secret: unknown field/,
      ],
      [
        fresh.replace('secret_file: bot-token', 'secret_file: missing-file'),
        /notifications\[3\]\.secret_file: /,
      ],
      [
        fresh.replace('    channel: C0123ABCD\n', '    channel: C0123ABCD\n    secret_out: chat.secret\n'),
        /notifications\[3\]\.secret_out: only a webhook/,
      ],
      [fresh.replace('remind_after: 30m', 'remind_after: soon'), /notifications\[2\]\.remind_after: /],
      [
        fresh.replace('escalate_to: approvals-chat', 'escalate_to: ghost'),
        /notifications\[2\]\.escalate_to: /,
      ],
      [
        `${fresh}  - id: new-hook\n    kind: webhook\n    url: https://x.example.org/\n    events: ['*']\n`,
        /listed twice/,
      ],
      [
        fresh.replace('url: https://siem.example.org/in', 'url: http://siem.example.org/in'),
        /notifications\[1\]\.url: /,
      ],
    ];
    const before = await ids();
    for (const [text, reason] of cases) {
      const e = await failure(text);
      expect(e.reason, text).toMatch(reason);
    }
    // The file a webhook secret would go to must be new.
    writeFileSync(file('taken.secret'), 'something else\n');
    const taken = await failure(fresh.replace('secret_out: new-audit.secret', 'secret_out: taken.secret'));
    expect(taken.reason).toMatch(/notifications\[1\]\.secret_out: .*exists/);
    expect(readFileSync(file('taken.secret'), 'utf8')).toBe('something else\n');
    // Two destinations of the document escalating to each other.
    const loop = await failure(
      fresh
        .replace(
          "    events: ['approval.*']\n",
          "    events: ['approval.*']\n    remind_after: 1h\n    escalate_to: approvers-mail\n",
        )
        .replaceAll('approvers-mail', 'mail-2')
        .replaceAll('approvals-chat', 'chat-2'),
    );
    expect(loop.reason).toMatch(/escalate to each other in a loop/);
    expect(await ids()).toEqual(before);
    expect(existsSync(file('new-audit.secret'))).toBe(false);
  });
});
