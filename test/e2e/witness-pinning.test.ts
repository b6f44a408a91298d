import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCosignature } from '../../src/evidence/cosignature.js';
import { encodeBase64 } from '../../src/evidence/encoding.js';
import { rawPublicKey } from '../../src/evidence/keys.js';
import { ed25519Signer } from '../../src/evidence/node-crypto.js';
import type { TreeHead } from '../../src/evidence/tree-head.js';
import { createDeploymentCertificate } from '../../src/tls/certificate.js';
import {
  runJson,
  runSvc,
  startDaemonProcess,
  startWitnessProcess,
  type DaemonProcess,
} from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

interface WitnessKey {
  witness_id: string;
  public_key: string;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/**
 * Finding 3: the daemon keeps only cosignatures made by the witness it pinned, by id and
 * key, whatever answers on the path; it can pin the witness's TLS certificate. Real
 * processes throughout: the built daemon and witness, a proxy in this process between them.
 */
describe('witness pinning (built binary, real TLS, a substituting proxy)', () => {
  const tmp = tmpDir('svc-witness-pin-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  const t = ['--tenant', 'acme'];
  const file = (name: string) => join(tmp.path, name);
  let logKey: string;
  let pin: WitnessKey;
  let witnessCert: string;
  let witness: DaemonProcess;
  let daemon: DaemonProcess | undefined;
  let bot: string;
  let step = 0;
  const servers: Server[] = [];

  const decide = async () => {
    const r = await call(`${daemon!.url}/v1/action`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bot}` },
      body: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'crm.read',
        action: 'read',
        task_id: 't1',
        effect_key_step: `s${++step}`,
      },
    });
    expect(r.status).toBe(200);
  };
  const witnessFlag = (url: string) => `${url}=${pin.witness_id}=${pin.public_key}`;
  const startDaemon = (args: string[]) =>
    startDaemonProcess(
      ['--allow-insecure-http', '--anchor-entries', '3', '--anchor-interval', '1h', ...args],
      env,
    );
  const witnessLines = () =>
    daemon!
      .stdout()
      .split('\n')
      .filter((l) => l.includes('witness'))
      .join('\n');
  const ready = async () =>
    (await call(`${daemon!.url}/readyz`)).body.details as {
      witnesses: { configured: number; failing: number; refused: number };
    };

  beforeAll(async () => {
    await runJson(['init', ...t, '--admin', 'alice'], env);
    await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
    await runJson(
      ['capability', 'register', ...t, '--name', 'crm.read', '--actions', 'read', '--tier', '1'],
      env,
    );
    await runJson(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'crm.read'], env);
    writeFileSync(file('policy.cedar'), 'permit (principal, action, resource);\n');
    await runJson(['policy', 'set', ...t, '--file', file('policy.cedar')], env);
    await runJson(['task', 'create', ...t, '--id', 't1', '--sponsor', 'alice', '--budget-usd', '100'], env);
    bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    logKey = (await runJson<{ public_key: string }>(['key', 'show', ...t], env)).public_key;
    pin = await runJson<WitnessKey>(['witness', 'key', '--key-file', file('w.pem')]);
    // The witness's own TLS certificate, made here: a leaf for 127.0.0.1 that the daemon pins.
    const tls = await createDeploymentCertificate({ now: new Date() });
    witnessCert = tls.certPem;
    writeFileSync(file('w-cert.pem'), tls.certPem);
    writeFileSync(file('w-key.pem'), tls.keyPem, { mode: 0o600 });
    witness = await startWitnessProcess([
      '--tls-cert',
      file('w-cert.pem'),
      '--tls-key',
      file('w-key.pem'),
      '--key-file',
      file('w.pem'),
      '--state',
      file('w-state.json'),
      '--log-key',
      `acme=${logKey}`,
    ]);
  }, 60_000);

  afterAll(async () => {
    await daemon?.stop();
    await witness?.stop();
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    tmp.cleanup();
  });

  it('the witness serves TLS, and refuses to serve plain HTTP unless asked', async () => {
    expect(witness.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const about = await call(`${witness.url}/v1/witness`, { ca: witnessCert });
    expect(about.body).toMatchObject({ witness_id: pin.witness_id, public_key: pin.public_key });
    const r = await runSvc([
      'witness',
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--key-file',
      file('w.pem'),
      '--state',
      file('other-state.json'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to serve plain HTTP: no --tls-cert and --tls-key given/);
  });

  it('a daemon refuses a witness given without its pinned id and key, naming the form', async () => {
    const bare = await runSvc(
      ['daemon', 'start', '--listen', '127.0.0.1:0', '--allow-insecure-http', '--witness', witness.url],
      env,
    );
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/--witness .*expected URL=ID=KEY/);
    const strayCa = await runSvc(
      [
        'daemon',
        'start',
        '--listen',
        '127.0.0.1:0',
        '--allow-insecure-http',
        '--witness',
        witnessFlag(witness.url),
        '--witness-ca',
        `someone-else=${file('w-cert.pem')}`,
      ],
      env,
    );
    expect(strayCa.code).toBe(2);
    expect(strayCa.stderr).toMatch(
      /--witness-ca someone-else: expected the id of a witness given with --witness/,
    );
  });

  it('a proxy answering in the witness name with its own key gets nothing stored: 4 of 4 refused and logged', async () => {
    const proxyKey = generateKeyPairSync('ed25519').privateKey;
    const proxySign = ed25519Signer(proxyKey);
    const toWitness = new Agent({ connect: { ca: witnessCert } });
    let substituted = 0;
    const proxy = createHttpServer((req, res) => {
      void (async () => {
        const body = req.method === 'POST' ? await readBody(req) : undefined;
        const upstream = await request(`${witness.url}${req.url}`, {
          method: req.method as 'GET' | 'POST',
          headers: { 'content-type': 'application/json' },
          ...(body !== undefined ? { body } : {}),
          dispatcher: toWitness,
        });
        let text = await upstream.body.text();
        if (req.url === '/v1/cosign' && upstream.statusCode === 200) {
          const head = (JSON.parse(body!) as { head: TreeHead }).head;
          const genuine = JSON.parse(text) as Record<string, string>;
          const own = signCosignature(head, genuine.signed_at!, proxySign);
          const variants: Record<string, string | undefined>[] = [
            // its own key, named in the answer under the real id: the attack that was stored 4 of 4
            { ...genuine, public_key: encodeBase64(rawPublicKey(proxyKey)), signature: own },
            // its own signature, no key named
            { ...genuine, public_key: undefined, signature: own },
            // its own signature beside the witness's real key
            { ...genuine, signature: own },
            // the witness's signature over another time
            { ...genuine, signed_at: '2026-01-01T00:00:00.000Z' },
          ];
          text = JSON.stringify(variants[substituted++ % variants.length]);
        }
        res.writeHead(upstream.statusCode, { 'content-type': 'application/json' }).end(text);
      })().catch(() => res.destroy());
    });
    servers.push(proxy);
    const proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;

    daemon = await startDaemon(['--witness', witnessFlag(proxyUrl)]);
    // One anchor per three decisions, each waited for, so each is its own substitution.
    let details = await ready();
    for (let round = 1; round <= 4; round++) {
      for (let i = 0; i < 3; i++) await decide();
      details = await until(
        `refusal ${round}`,
        async () => {
          const d = await ready();
          return d.witnesses.refused >= round ? d : undefined;
        },
        witnessLines,
      );
    }
    expect(substituted).toBe(4);
    expect(details.witnesses).toEqual({ configured: 1, failing: 1, refused: 4 });
    expect(await daemon.stop()).toBe(0);
    const refusals = daemon
      .stdout()
      .split('\n')
      .filter((l) => l.includes('cosignature refused'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(refusals).toHaveLength(4);
    for (const r of refusals) {
      expect(r).toMatchObject({ witness_id: pin.witness_id, witness_url: `${proxyUrl}/` });
      expect(String(r.err)).toMatch(/pinned/);
    }
    expect(daemon.stdout()).not.toMatch(/anchor witness \S+ recorded/);
    daemon = undefined;
    await toWitness.close();
  });

  it('a TLS server with another certificate is refused: the pinned certificate is the only trust root', async () => {
    const other = await createDeploymentCertificate({ now: new Date() });
    let requests = 0;
    let handshakeErrors = 0;
    const impostor = createHttpsServer({ cert: other.certPem, key: other.keyPem }, (_req, res) => {
      requests++;
      res.writeHead(503).end();
    });
    impostor.on('tlsClientError', () => handshakeErrors++);
    servers.push(impostor);
    const impostorUrl = `https://127.0.0.1:${await listen(impostor)}`;

    daemon = await startDaemon([
      '--witness',
      witnessFlag(impostorUrl),
      '--witness-ca',
      `${pin.witness_id}=${file('w-cert.pem')}`,
    ]);
    for (let i = 0; i < 3; i++) await decide();
    const details = await until('the witness to count as failing', async () => {
      const d = await ready();
      return d.witnesses.failing === 1 ? d : undefined;
    });
    expect(details.witnesses).toEqual({ configured: 1, failing: 1, refused: 0 });
    expect(requests).toBe(0);
    expect(handshakeErrors).toBeGreaterThan(0);
    expect(await daemon.stop()).toBe(0);
    daemon = undefined;
  });

  it('the genuine witness over pinned TLS is stored, and the export verifies with the witness key pinned', async () => {
    daemon = await startDaemon([
      '--witness',
      witnessFlag(witness.url),
      '--witness-ca',
      `${pin.witness_id}=${file('w-cert.pem')}`,
    ]);
    for (let i = 0; i < 3; i++) await decide();
    await until(
      'the cosignature to be recorded',
      () => (daemon!.stdout().includes(`anchor witness ${pin.witness_id} recorded`) ? true : undefined),
      witnessLines,
    );
    expect((await ready()).witnesses).toEqual({ configured: 1, failing: 0, refused: 0 });
    expect(await daemon.stop()).toBe(0);
    daemon = undefined;

    const out = file('acme.jsonl');
    await runJson(['export', ...t, '--out', out], env);
    const pinned = await runSvc([
      'verify',
      out,
      '--public-key',
      logKey,
      '--witness-key',
      `${pin.witness_id}=${pin.public_key}`,
      '--json',
    ]);
    expect(pinned.code, pinned.stdout).toBe(0);
    // Only the genuine cosignature was ever stored: none of the proxy's four.
    expect(JSON.parse(pinned.stdout).witnesses).toMatchObject({ cosignatures: 1, verified: 1, unpinned: 0 });
  });
});
