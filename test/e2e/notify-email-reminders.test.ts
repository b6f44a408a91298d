import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { serverPki } from '../helpers/server-pki.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';
import { provisionRefunds } from '../helpers/refund-tenant.js';

interface Mail {
  raw: string;
  secure: boolean;
  user: unknown;
  to: string[];
}
interface Hooked {
  path: string;
  headers: Record<string, string>;
  body: string;
}
type Event = { type: string; data: Record<string, unknown> };

const PASSWORD = 'e2e-smtp-pass-7Hq2';

/** The text body of a message, quoted-printable decoded when it is. */
function textOf(raw: string): string {
  const at = raw.indexOf('\r\n\r\n');
  const body = raw.slice(at + 4);
  if (!/Content-Transfer-Encoding: quoted-printable/i.test(raw.slice(0, at))) return body;
  return Buffer.from(
    body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  ).toString('utf8');
}

/**
 * Email and reminders over the built binary: the daemon delivers a deferred refund as an
 * email over STARTTLS to a real SMTP server (smtp-server, a certificate this test makes,
 * AUTH required), the approval is approved with the CLI and the resume is allowed; a webhook
 * destination with a 5 s reminder gets `approval.reminder`, and so does its escalation
 * destination (escalated), whatever that one subscribed to.
 */
describe('email destinations and reminders end to end (built binary, real SMTP server)', () => {
  const tmp = tmpDir('svc-e2e-email-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  let daemon: DaemonProcess | undefined;
  let ca: Buffer;
  let bot: string;
  let bob: string;
  let smtpPort: number;
  let hookBase: string;
  const mails: Mail[] = [];
  const hooked: Hooked[] = [];
  const secrets: Record<string, string> = {};
  let smtp: SMTPServer;
  const receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooked.push({
        path: req.url ?? '',
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(204).end();
    });
  });
  const svc = <T = Record<string, unknown>>(args: string[]) => runJson<T>(args, env);
  const refund = (step: string, route = '/v1/action') =>
    call(`${daemon!.url}${route}`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${bot}` },
      body: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'refunds.issue',
        action: 'write',
        task_id: 't1',
        effect_key_step: step,
        amount_usd: 40,
        intent: `refund order ${step}`,
      },
    });

  beforeAll(async () => {
    const pki = await serverPki('svc e2e smtp CA');
    const tls = await pki.issue('localhost');
    const caFile = join(tmp.path, 'smtp-ca.pem');
    writeFileSync(caFile, pki.caPem);
    smtp = new SMTPServer({
      secure: false,
      ...tls,
      logger: false,
      authOptional: false,
      onAuth(auth, _s, cb) {
        if (auth.username === 'svc' && auth.password === PASSWORD) cb(null, { user: 'svc' });
        else cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push({
            raw: Buffer.concat(chunks).toString('utf8'),
            secure: session.secure,
            user: session.user,
            to: session.envelope.rcptTo.map((r) => r.address),
          });
          cb();
        });
      },
    });
    smtp.listen(0, '127.0.0.1');
    await new Promise((r) => smtp.server.once('listening', r));
    smtpPort = (smtp.server.address() as AddressInfo).port;
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    const init = await svc<{ ca_cert: string }>(['init', ...t, '--admin', 'alice']);
    ca = readFileSync(init.ca_cert);
    await svc(['actor', 'add', ...t, '--id', 'bob', '--kind', 'human', '--role', 'approver']);
    bot = await provisionRefunds(env, { tenant: 'acme', sponsor: 'alice', dir: tmp.path });
    bob = (await svc<{ token: string }>(['token', 'issue', ...t, '--actor', 'bob'])).token;

    const password = join(tmp.path, 'smtp-password');
    writeFileSync(password, `${PASSWORD}\n`);
    await svc([
      'notify',
      'add',
      'mail',
      ...t,
      '--kind',
      'email',
      '--url',
      `smtp://127.0.0.1:${smtpPort}`,
      '--events',
      'approval.requested',
      '--from',
      'svc@example.org',
      '--to',
      'approvers@example.org',
      '--smtp-user',
      'svc',
      '--secret-file',
      password,
      '--console-url',
      'https://console.example.org:8443',
      '--smtp-ca-file',
      caFile,
    ]);
    // the escalation target subscribes to something else entirely: escalation reaches it anyway
    for (const [id, extra] of [
      ['oncall', ['--events', 'budget.threshold']],
      ['remind', ['--events', 'approval.requested', '--remind-after', '5s', '--escalate-to', 'oncall']],
    ] as const) {
      const r = await svc<{ secret: string }>([
        'notify',
        'add',
        id,
        ...t,
        '--kind',
        'webhook',
        '--url',
        `${hookBase}/${id}`,
        ...extra,
      ]);
      secrets[id] = r.secret;
    }
    daemon = await startDaemonProcess(['--notify-allow-loopback-http', '--notify-timeout', '5s'], env);
  });

  afterAll(async () => {
    await daemon?.stop();
    receiver.closeAllConnections();
    await new Promise((ok) => receiver.close(ok));
    await new Promise<void>((ok) => smtp.close(() => ok()));
    tmp.cleanup();
  });

  it('svc notify test sends a test email over STARTTLS with AUTH', async () => {
    const r = await svc<{ outcome: string; status: number; event_type: string }>([
      'notify',
      'test',
      'mail',
      ...t,
      '--notify-allow-loopback-http',
    ]);
    expect(r).toMatchObject({ outcome: 'delivered', status: 250, event_type: 'approval.requested' });
    const test = await until('the test email', () =>
      mails.find((m) => /Subject: \[svc\] Test of/.test(m.raw)),
    );
    expect(test.secure).toBe(true);
    expect(textOf(test.raw)).not.toContain('#/approvals/');
  });

  it('a deferred refund arrives by email through the daemon; approved with the CLI, the resume is allowed', async () => {
    const deferred = await refund('mail-1');
    expect(deferred.status).toBe(202);
    const approvalId = (deferred.body.approval as { approval_id: string }).approval_id;
    const mail = await until(
      'the approval email',
      () => mails.find((m) => m.raw.includes(approvalId) && !/Subject: \[svc\] Test of/.test(m.raw)),
      () => daemon?.stderr() ?? '',
    );
    expect(mail.secure).toBe(true);
    expect(mail.user).toBe('svc');
    expect(mail.to).toEqual(['approvers@example.org']);
    expect(mail.raw).toMatch(/^Subject: \[svc\] Approval needed: refunds\.issue write, 40 USD$/m);
    const text = textOf(mail.raw);
    expect(text).toContain(`https://console.example.org:8443/#/approvals/${approvalId}`);
    expect(text).toContain('refund order mail-1');
    for (const secret of [PASSWORD, bot, bob, secrets.remind!, secrets.oncall!])
      expect(mail.raw).not.toContain(secret);

    const approved = await runSvc(['approvals', 'approve', approvalId, '--json'], { ...env, SVC_TOKEN: bob });
    expect(approved.code).toBe(0);
    const resumed = await refund('mail-1', '/v1/action/resume');
    expect(resumed.status).toBe(200);
    expect(resumed.body.decision).toBe('allowed');
  });

  it('a pending approval is reminded after 5 s, and escalated to the oncall destination, each once', async () => {
    const deferred = await refund('remind-1');
    expect(deferred.status).toBe(202);
    const approvalId = (deferred.body.approval as { approval_id: string }).approval_id;
    const reminderAt = (path: string) =>
      until(
        `approval.reminder at ${path}`,
        () =>
          hooked.find((h) => {
            const e = JSON.parse(h.body) as Event;
            return h.path === path && e.type === 'approval.reminder' && e.data.approval_id === approvalId;
          }),
        () => daemon?.stderr() ?? '',
      );
    const [reminded, escalated] = [await reminderAt('/remind'), await reminderAt('/oncall')];
    const r = new Webhook(secrets.remind!).verify(reminded.body, reminded.headers) as Event;
    const e = new Webhook(secrets.oncall!).verify(escalated.body, escalated.headers) as Event;
    expect(r.data).toMatchObject({ approval_id: approvalId, status: 'pending', escalated: false });
    expect(e.data).toMatchObject({ approval_id: approvalId, status: 'pending', escalated: true });
    expect(Number(r.data.pending_seconds)).toBeGreaterThanOrEqual(5);
    // Once the outbox is drained, each destination got this approval's reminder once.
    await until('an empty outbox', async () => {
      const pending = await svc<{ items: unknown[] }>(['notify', 'deliveries', ...t, '--state', 'pending']);
      return pending.items.length === 0 ? true : undefined;
    });
    const count = (path: string) =>
      hooked.filter((h) => {
        const ev = JSON.parse(h.body) as Event;
        return h.path === path && ev.type === 'approval.reminder' && ev.data.approval_id === approvalId;
      }).length;
    expect([count('/remind'), count('/oncall')]).toEqual([1, 1]);
  });
});
