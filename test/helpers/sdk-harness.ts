import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { runJson, startDaemonProcess, type DaemonProcess } from './cli.js';
import { downstream, type Downstream } from './downstream.js';
import { tmpDir } from './tmp.js';

/** The SDK suites' deployment: who and what each language's tests find in tenant acme. */
export const DEPLOYMENT = {
  tenant: 'acme',
  agent: 'bot',
  approver: 'bob',
  task: 't1',
  /** grant custody, tier 0: allowed */
  allowed: 'notes.read',
  /** grant custody, irreversible: deferred until an approver approves */
  irreversible: 'payments.send',
  /** brokered custody: executed through the downstream provider */
  brokered: 'crm.contacts.create',
  /** brokered and irreversible: deferred, then resumed and executed */
  brokeredIrreversible: 'crm.contacts.purge',
  /** pass_through custody: the agent reports the effect with observe */
  passThrough: 'mail.send',
} as const;

const deploymentYaml = (requestable: string) => `version: 1
tenant: acme
actors:
  - { id: bob, kind: human, roles: [approver, manager] }
  - { id: bot, kind: agent, manager: bob }
capabilities:
  - { name: notes.read, tier: 0, actions: [read], cost_usd: 0.01 }
  - { name: payments.send, tier: 1, irreversible: true, actions: [write], cost_usd: 0.01 }
  - { name: crm.contacts.create, tier: 1, custody: brokered, actions: [write], cost_usd: 0.01, surface: crm, operation: contacts.create }
  - { name: crm.contacts.purge, tier: 1, irreversible: true, custody: brokered, actions: [write], cost_usd: 0.01, surface: crm, operation: contacts.create }
  - { name: mail.send, tier: 0, custody: pass_through, actions: [write], cost_usd: 0.01 }
  - { name: ${requestable}, tier: 0, actions: [read], requestable: true, owners: [bob] }
permissions:
  - { actor: bot, capability: notes.read }
  - { actor: bot, capability: payments.send }
  - { actor: bot, capability: crm.contacts.create }
  - { actor: bot, capability: crm.contacts.purge }
  - { actor: bot, capability: mail.send }
policy:
  text: |
    permit (principal, action, resource);
tasks:
  - { id: t1, sponsor: alice, budget_usd: 1000, actors: [bot] }
`;

const opsYaml = (url: string) => `surfaces:
  - id: crm
    adapter: http
    base_url: ${url}
    credential_ref: env:SDK_TEST_CRM_TOKEN
    auth: { type: bearer }
    timeout_ms: 10000
    check: { method: GET, path: /health }
    operations:
      contacts.create:
        method: POST
        path: /contacts/{team}
        effect_id: /id
`;

export interface SdkHarness {
  daemon: DaemonProcess;
  provider: Downstream;
  /** the environment a language's test suite runs with */
  env: Record<string, string>;
  close: () => Promise<void>;
}

interface Proxy {
  url: string;
  close: () => Promise<void>;
}

/**
 * A plain-HTTP loopback proxy to the daemon over TLS. `around` runs around each forwarded
 * request; `drop` forwards the request, waits for the daemon's whole answer, then cuts the
 * client's connection without relaying it: a response lost on the way back.
 */
async function proxy(
  daemonUrl: string,
  ca: string,
  mode: { drop: boolean; around?: (method: string, forward: () => Promise<void>) => Promise<void> },
): Promise<Proxy> {
  const agent = new Agent({ connect: { ca } });
  const sockets = new Set<Socket>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const forward = async () => {
      const headers: Record<string, string> = {};
      for (const h of ['authorization', 'x-svc-token', 'content-type', 'accept']) {
        const v = req.headers[h];
        if (typeof v === 'string') headers[h] = v;
      }
      const answer = await request(daemonUrl + (req.url ?? '/'), {
        method: (req.method ?? 'GET') as 'GET' | 'POST',
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        dispatcher: agent,
      });
      const body = Buffer.from(await answer.body.arrayBuffer());
      // Only decisions lose their answer; the identity lookup before them gets through.
      if (mode.drop && req.method === 'POST') {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? '') });
      res.end(body);
    };
    await (mode.around ? mode.around(req.method ?? 'GET', forward) : forward());
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };
}

/**
 * A real deployment for an SDK suite: `svc init`, `svc apply`, tokens, the built daemon over
 * TLS with a brokered surface on a real downstream provider, and two proxies: one that
 * loses the daemon's answer, and one that holds the database's write lock while a decision
 * is asked, so the daemon itself answers 503 (busy, nothing committed).
 */
export async function sdkHarness(requestable: string): Promise<SdkHarness> {
  const tmp = tmpDir('svc-sdk-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  const init = await runJson<{ admin_token: string; ca_cert: string }>(
    ['init', '--tenant', 'acme', '--admin', 'alice'],
    env,
  );
  const deployment = join(tmp.path, 'deployment.yaml');
  writeFileSync(deployment, deploymentYaml(requestable));
  await runJson(['apply', '-f', deployment], env);
  const issue = async (actor: string) =>
    (await runJson<{ token: string }>(['token', 'issue', '--tenant', 'acme', '--actor', actor], env)).token;
  const [bot, bob] = [await issue('bot'), await issue('bob')];
  const provider = await downstream();
  const ops = join(tmp.path, 'ops.yaml');
  writeFileSync(ops, opsYaml(provider.url));
  const daemon = await startDaemonProcess(['--integration-ops', ops], {
    ...env,
    SDK_TEST_CRM_TOKEN: 'crm-token-1',
  });
  const ca = readFileSync(init.ca_cert, 'utf8');
  const drop = await proxy(daemon.url, ca, { drop: true });
  const db = new Database(join(home, 'svc.db'), { fileMustExist: true });
  const locked = await proxy(daemon.url, ca, {
    drop: false,
    around: async (method, forward) => {
      if (method !== 'POST') return forward();
      db.exec('BEGIN IMMEDIATE');
      try {
        await forward();
      } finally {
        db.exec('ROLLBACK');
      }
    },
  });
  return {
    daemon,
    provider,
    env: {
      SVC_ENDPOINT: daemon.url,
      SVC_CA_CERT: init.ca_cert,
      SVC_TOKEN: bot,
      SVC_TEST_APPROVER_TOKEN: bob,
      SVC_TEST_DROP_ENDPOINT: drop.url,
      SVC_TEST_LOCKED_ENDPOINT: locked.url,
      SVC_TEST_TASK: DEPLOYMENT.task,
      SVC_TEST_REQUESTABLE: requestable,
      SVC_TEST_RUN: `r${Date.now().toString(36)}`,
    },
    close: async () => {
      await drop.close();
      await locked.close();
      db.close();
      await daemon.stop();
      await provider.close();
      tmp.cleanup();
    },
  };
}

export interface Ran {
  code: number | null;
  output: string;
}

/** Run a language's own test runner with the harness environment; stdout and stderr together. */
export function runSuite(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
