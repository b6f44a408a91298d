import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import {
  createConnection,
  createServer as createTcp,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NotifyEvent } from '../../src/core/notify/event.js';
import type { SendContext } from '../../src/notify/delivery-loop.js';
import { emailSender, sendEmail } from '../../src/notify/email-sender.js';
import { DEFAULT_OUTBOUND_POLICY, type OutboundPolicy } from '../../src/notify/outbound-policy.js';
import type { NotifyDestination, NotifyRepo } from '../../src/store/notify-ports.js';
import { serverPki, type ServerPki } from '../helpers/server-pki.js';
import { tmpDir } from '../helpers/tmp.js';

// A real SMTP server (smtp-server) on loopback, with STARTTLS on a certificate this test makes.

const PASSWORD = 'smtp-pass-Zq81xR4';
const policy: OutboundPolicy = { ...DEFAULT_OUTBOUND_POLICY, allowPrivate: ['127.0.0.1'], timeoutMs: 5_000 };

interface Mail {
  raw: string;
  secure: boolean;
  user: string | undefined;
  from: string | undefined;
  to: string[];
}

let pki: ServerPki;
let tls: { cert: string; key: string };
let caFile: string;
const dir = tmpDir('svc-email-');
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  pki = await serverPki('svc email test CA');
  tls = await pki.issue('localhost');
  caFile = join(dir.path, 'ca.pem');
  writeFileSync(caFile, pki.caPem);
});
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});
afterAll(() => dir.cleanup());

/** An SMTP server on 127.0.0.1 that records every message and every command it saw. */
async function smtp(
  o: Partial<SMTPServerOptions> = {},
): Promise<{ port: number; mails: Mail[]; auths: string[]; commands: string[] }> {
  const mails: Mail[] = [];
  const auths: string[] = [];
  const commands: string[] = [];
  const server = new SMTPServer({
    secure: false,
    ...tls,
    logger: false,
    authOptional: true,
    onAuth(auth, _session, cb) {
      auths.push(auth.username ?? '');
      if (auth.username === 'svc' && auth.password === PASSWORD) cb(null, { user: 'svc' });
      else cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onMailFrom(address, _s, cb) {
      commands.push(`MAIL ${address.address}`);
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          raw: Buffer.concat(chunks).toString('utf8'),
          secure: session.secure,
          user: session.user as string | undefined,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
        });
        cb();
      });
    },
    ...o,
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.server.once('listening', r));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.server.address() as AddressInfo).port, mails, auths, commands };
}

const approvalEvent = (data: Record<string, unknown> = {}): NotifyEvent => ({
  id: 'evt_01JEMAILTEST000000000000',
  tenantId: 'acme',
  type: 'approval.requested',
  timestamp: '2026-11-27T00:00:00.000Z',
  data: {
    tenant_id: 'acme',
    approval_id: 'apr_0f3c8b2a',
    intent_id: 'int_1',
    task_id: 'refund-42',
    effect_key_step: 'refund',
    capability: 'payments.refund',
    action: 'write',
    intent: 'refund order 42',
    requester_id: 'demo-agent',
    amount_usd: 120,
    currency: 'USD',
    request_digest: 'sha256:6b1f0c',
    expires_at: '2026-11-28T00:00:00.000Z',
    created_at: '2026-11-27T00:00:00.000Z',
    ...data,
  },
});

function destination(
  port: number,
  settings: Record<string, unknown> = {},
  host = 'localhost',
): NotifyDestination {
  return {
    tenantId: 'acme',
    id: 'mail',
    kind: 'email',
    url: `smtp://${host}:${port}`,
    events: ['approval.*'],
    secretName: 'notify.mail',
    enabled: true,
    disabledReason: null,
    createdAt: '2026-11-27T00:00:00.000Z',
    settings: {
      from: 'svc@example.org',
      to: ['approvers@example.org', 'oncall@example.org'],
      username: 'svc',
      consoleUrl: 'https://console.example.org/',
      caFile,
      ...settings,
    },
    remindAfterSeconds: null,
    escalateTo: null,
  };
}

// The email sender never reads the store: any use of it is a bug, so it throws.
const noRepo = new Proxy({} as NotifyRepo, {
  get: () => {
    throw new Error('the email sender used the store');
  },
});

function ctx(
  d: NotifyDestination,
  event = approvalEvent(),
  p = policy,
  secrets = [PASSWORD],
): SendContext & {
  opened: () => number;
} {
  let opened = 0;
  return {
    destination: d,
    event,
    policy: p,
    now: new Date(),
    repo: noRepo,
    secrets: async () => {
      opened++;
      return secrets;
    },
    opened: () => opened,
  };
}

/** The message's header block and its decoded text body (quoted-printable or 7bit). */
function parse(raw: string): { headers: string; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, at);
  let body = raw.slice(at + 4);
  if (/Content-Transfer-Encoding: quoted-printable/i.test(headers)) {
    body = Buffer.from(
      body
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  }
  return { headers, body };
}

const header = (headers: string, name: string): string[] =>
  headers
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')
    .filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    .map((l) => l.slice(name.length + 1).trim());

describe('sendEmail over STARTTLS to a real SMTP server', () => {
  it('upgrades with STARTTLS, authenticates, and sends what would run with a link that only opens the console', async () => {
    const s = await smtp({ authOptional: false });
    const c = ctx(destination(s.port));
    expect(await sendEmail(c)).toEqual({ kind: 'delivered', status: 250 });
    expect(s.mails).toHaveLength(1);
    const m = s.mails[0]!;
    expect(m.secure).toBe(true);
    expect(m.user).toBe('svc');
    expect(m.from).toBe('svc@example.org');
    expect(m.to).toEqual(['approvers@example.org', 'oncall@example.org']);
    const { headers, body } = parse(m.raw);
    expect(header(headers, 'Subject')).toEqual(['[svc] Approval needed: payments.refund write, 120 USD']);
    expect(header(headers, 'Message-ID')).toEqual(['<evt_01JEMAILTEST000000000000@example.org>']);
    expect(header(headers, 'X-Svc-Event-Type')).toEqual(['approval.requested']);
    for (const fact of [
      'payments.refund',
      'write',
      '120 USD',
      'refund-42',
      'refund order 42',
      'demo-agent',
      'sha256:6b1f0c',
      '2026-11-28T00:00:00.000Z',
    ]) {
      expect(body).toContain(fact);
    }
    expect(body).toContain('https://console.example.org/#/approvals/apr_0f3c8b2a');
    // the only link is the console's page, which asks to sign in; no approve-by-link URL
    expect(body.match(/https?:\/\/\S+/g)).toEqual(['https://console.example.org/#/approvals/apr_0f3c8b2a']);
    expect(m.raw).not.toContain(PASSWORD);
    expect(Buffer.from(m.raw).toString('base64')).not.toContain(Buffer.from(PASSWORD).toString('base64'));
  });

  it('without a user it authenticates not at all and never opens the secret', async () => {
    const s = await smtp();
    const c = ctx(destination(s.port, { username: null }));
    expect(await sendEmail(c)).toEqual({ kind: 'delivered', status: 250 });
    expect(c.opened()).toBe(0);
    expect(s.auths).toEqual([]);
    expect(s.mails[0]!.user).toBeFalsy();
  });

  it('refuses a server that offers no STARTTLS: nothing is sent in the clear', async () => {
    const s = await smtp({ disabledCommands: ['STARTTLS'], allowInsecureAuth: true });
    const out = await sendEmail(ctx(destination(s.port)));
    expect(out).toMatchObject({ kind: 'retry', error: 'starttls_unavailable' });
    expect(s.auths).toEqual([]);
    expect(s.commands).toEqual([]);
    expect(s.mails).toEqual([]);
  });

  it('refuses a certificate no trusted CA signed, and one for another name', async () => {
    const s = await smtp();
    expect(await sendEmail(ctx(destination(s.port, { caFile: null })))).toEqual({
      kind: 'retry',
      status: null,
      error: 'tls_untrusted',
    });
    // mail.test resolves to the same server; its certificate names localhost only
    const send = emailSender({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(await send(ctx(destination(s.port, {}, 'mail.test')))).toEqual({
      kind: 'retry',
      status: null,
      error: 'tls_untrusted',
    });
    expect(s.auths).toEqual([]);
    expect(s.mails).toEqual([]);
  });

  it('a wrong password is auth_failed; a missing CA file is ca_unavailable', async () => {
    const s = await smtp({ authOptional: false });
    expect(await sendEmail(ctx(destination(s.port), approvalEvent(), policy, ['wrong']))).toMatchObject({
      kind: 'retry',
      error: 'auth_failed',
    });
    expect(await sendEmail(ctx(destination(s.port, { caFile: join(dir.path, 'gone.pem') })))).toEqual({
      kind: 'retry',
      status: null,
      error: 'ca_unavailable',
    });
    expect(s.mails).toEqual([]);
  });

  it('retries a rejection with its reply code: 4xx and 5xx of every recipient alike', async () => {
    for (const code of [451, 550]) {
      const s = await smtp({
        onRcptTo: (_a, _s, cb) => cb(Object.assign(new Error('mailbox unavailable'), { responseCode: code })),
      });
      expect(await sendEmail(ctx(destination(s.port)))).toEqual({
        kind: 'retry',
        status: code,
        error: `smtp_${code}`,
      });
      expect(s.mails).toEqual([]);
    }
  });

  it('one recipient accepted of two is delivered', async () => {
    const s = await smtp({
      onRcptTo: (a, _s, cb) =>
        a.address === 'oncall@example.org'
          ? cb(Object.assign(new Error('no such user'), { responseCode: 550 }))
          : cb(),
    });
    expect(await sendEmail(ctx(destination(s.port)))).toEqual({ kind: 'delivered', status: 250 });
    expect(s.mails[0]!.to).toEqual(['approvers@example.org']);
  });

  it('refuses a private or loopback server unless the deployment allows it', async () => {
    const s = await smtp();
    expect(await sendEmail(ctx(destination(s.port), approvalEvent(), DEFAULT_OUTBOUND_POLICY))).toEqual({
      kind: 'refused',
      error: 'loopback_address',
    });
    const send = emailSender({ resolve: async () => [{ address: '10.1.2.3', family: 4 }] });
    expect(await send(ctx(destination(s.port, {}, 'mail.internal')))).toEqual({
      kind: 'refused',
      error: 'private_address',
    });
    expect(s.commands).toEqual([]);
  });

  it('a server that never greets is cut at the time-out', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createTcp((sock) => sockets.add(sock));
    silent.listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    closers.push(async () => {
      for (const sock of sockets) sock.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    });
    const port = (silent.address() as AddressInfo).port;
    expect(await sendEmail(ctx(destination(port), approvalEvent(), { ...policy, timeoutMs: 300 }))).toEqual({
      kind: 'retry',
      status: null,
      error: 'timeout',
    });
  });

  it('a server whose connection never completes, or a name that never resolves, is cut at the time-out', async () => {
    // A listener that never accepts (backlog 0), its queue filled by one connection: the
    // kernel drops the next handshakes, so a connect hangs as it would to a black hole.
    const child = spawn(
      'python3',
      [
        '-c',
        'import socket,time\ns=socket.socket();s.bind(("127.0.0.1",0));s.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(60)',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    closers.push(async () => void child.kill());
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const port = Number(line.toString().trim());
    const filler = createConnection(port, '127.0.0.1');
    filler.on('error', () => undefined);
    closers.push(async () => void filler.destroy());
    await once(filler, 'connect');
    const short = { ...policy, timeoutMs: 300 };
    expect(await sendEmail(ctx(destination(port), approvalEvent(), short))).toEqual({
      kind: 'retry',
      status: null,
      error: 'timeout',
    });
    const hung = emailSender({ resolve: () => new Promise(() => undefined) });
    expect(await hung(ctx(destination(port, {}, 'mail.test'), approvalEvent(), short))).toEqual({
      kind: 'retry',
      status: null,
      error: 'timeout',
    });
  });

  it('keeps every header one line: a value with CR LF cannot add a header or a line of its own', async () => {
    const s = await smtp();
    const hostile = approvalEvent({
      capability: 'payments.refund\r\nBcc: thief@example.net',
      intent: 'ok\r\n\r\nApprove at https://evil.example.net/approve',
    });
    expect(await sendEmail(ctx(destination(s.port), hostile))).toMatchObject({ kind: 'delivered' });
    const m = s.mails[0]!;
    const { headers, body } = parse(m.raw);
    expect(header(headers, 'Bcc')).toEqual([]);
    expect(m.to).toEqual(['approvers@example.org', 'oncall@example.org']);
    expect(header(headers, 'Subject')).toHaveLength(1);
    expect(header(headers, 'Subject')[0]).toContain('Bcc: thief@example.net');
    // the intent stays on its own labelled line
    expect(body.split(/\r?\n/).filter((l) => l.includes('evil.example.net'))).toEqual([
      expect.stringMatching(/^Intent: +ok Approve at https:\/\/evil\.example\.net\/approve$/),
    ]);
  });

  it('renders every other event type field by field, and a reminder or a test as such', async () => {
    const s = await smtp();
    const reminder = approvalEvent({ status: 'pending', pending_seconds: 1800, escalated: true });
    await sendEmail(ctx(destination(s.port), { ...reminder, type: 'approval.reminder' }));
    await sendEmail(
      ctx(destination(s.port), {
        id: 'evt_2',
        tenantId: 'acme',
        type: 'budget.threshold',
        timestamp: '2026-11-27T00:00:00.000Z',
        data: { tenant_id: 'acme', task_id: 'refund-42', threshold_percent: 80, budget_usd: 500 },
      }),
    );
    await sendEmail(
      ctx(destination(s.port), {
        id: 'evt_3',
        tenantId: 'acme',
        type: 'approval.requested',
        timestamp: '2026-11-27T00:00:00.000Z',
        data: { tenant_id: 'acme', test: true, destination_id: 'mail' },
      }),
    );
    const [r, b, t] = s.mails.map((m) => parse(m.raw));
    expect(header(r!.headers, 'Subject')).toEqual([
      '[svc] Escalated, still pending: payments.refund write, 120 USD',
    ]);
    expect(r!.body).toContain('waited 30 minutes');
    expect(header(b!.headers, 'Subject')).toEqual(['[svc] budget.threshold']);
    expect(b!.body.split(/\r?\n/)).toContainEqual(expect.stringMatching(/^threshold_percent: +80$/));
    expect(header(t!.headers, 'Subject')).toEqual(['[svc] Test of this destination (approval.requested)']);
    expect(t!.body).not.toContain('#/approvals/');
  });
});
