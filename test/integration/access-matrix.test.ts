import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeSubject } from '../../src/core/cert-subject.js';
import { tlsServerOptions } from '../../src/http/tls.js';
import { addActor } from '../../src/provisioning/actor.js';
import { issueToken } from '../../src/provisioning/token.js';
import { buildDaemon, daemonOpenApi } from '../../src/daemon/app.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { parseIntegrationDocument } from '../../src/integration/document.js';
import {
  ACTORS,
  listedId,
  satisfies,
  seedWorlds,
  TABLE,
  type Actor,
  type Ids,
  type Outcome,
  type Row,
} from '../helpers/access-table.js';
import { clientPki, type IssuedCert } from '../helpers/client-pki.js';
import { fullDaemon, type FullDaemon } from '../helpers/full-daemon.js';
import { leakScan } from '../helpers/leak-scan.js';
import { watchConformance } from '../helpers/openapi-conformance.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The access matrix, generated: every route of the app's table x every role x own and
 * other tenant x no / expired / revoked credential, in token mode (app.inject) and in
 * mutual-TLS mode (a real TLS listener, client certificates). Expectations come from
 * helpers/access-table.ts, written from the spec.
 */

interface Cell {
  route: string;
  caller: string;
  tenant: 'own' | 'other';
  credential: string;
  expected: Outcome;
  status: number;
}

/** Within a route, callers expected to be refused go first: admitted ones may change the resource. */
function callerOrder(row: Row): Actor[] {
  const admitted = (a: Actor) => ['admitted', 'ok', 'listed', 'authenticated'].includes(row.own(a));
  return [...ACTORS.filter((a) => !admitted(a)), ...ACTORS.filter(admitted)];
}

/** Reads before writes, so a write (a revoke, a decision) cannot change what a read expects. */
function readsFirst(): [string, Row][] {
  const rows = Object.entries(TABLE);
  return [...rows.filter(([k]) => k.startsWith('GET')), ...rows.filter(([k]) => !k.startsWith('GET'))];
}

/** Ids of the other tenant in an answer, other than those the request itself named. */
function otherTenantIdsIn(body: string, own: Ids, other: Ids, sent: string): string[] {
  const ids = [
    other.grant,
    other.intent,
    other.approval,
    other.receipt,
    other.request,
    other.card,
    other.entitlement,
  ];
  return ids.filter((id) => body.includes(id) && !sent.includes(id) && !Object.values(own).includes(id));
}

describe('the access matrix in token mode', () => {
  let d: FullDaemon;
  let ids: Record<string, Ids>;
  const cells: Cell[] = [];
  const bad: Record<string, Record<string, string>> = { expired: {}, revoked: {} };

  beforeAll(async () => {
    d = await fullDaemon();
    ids = await seedWorlds(d);
    const past = new Date(d.f.now.value.getTime() - 2 * 86_400_000);
    for (const a of ACTORS) {
      const expired = await issueToken(d.f.store, {
        tenantId: 'acme',
        actorId: a,
        ttlMs: 86_400_000,
        now: past,
      });
      bad.expired![a] = expired.token;
      const revoked = await issueToken(d.f.store, {
        tenantId: 'acme',
        actorId: a,
        ttlMs: 86_400_000,
        now: d.f.now.value,
      });
      await d.f.store.tokens.revoke('acme', revoked.token_id, d.f.now.value.toISOString());
      bad.revoked![a] = revoked.token;
    }
  });
  afterAll(async () => {
    leakScan.check(d.logLines.join(''), 'daemon log of the access matrix');
    await d.close();
  });

  const send = async (route: string, row: Row, target: Ids, caller: Actor, token: string | undefined) => {
    const method = route.split(' ')[0] as 'GET' | 'POST';
    const req = row.request(target, caller, cells.length);
    const r = await d.app.inject({
      method,
      url: req.url,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      ...(req.payload ? { payload: req.payload } : {}),
    });
    leakScan.check(r.body, `${route} as ${caller}`);
    return r;
  };

  it('has a row, written from the spec, for every route the app mounts', () => {
    const mounted = d.routes.map((r) => `${r.method} ${r.url}`).sort();
    expect(mounted.filter((k) => !TABLE[k])).toEqual([]);
    expect(Object.keys(TABLE).sort()).toEqual(mounted);
  });

  it('every cell answers as the table says, and no answer carries another tenant’s data', async () => {
    const own = ids.acme!;
    const other = ids.other!;
    const failures: string[] = [];
    for (const [route, row] of readsFirst()) {
      for (const tenant of ['own', 'other'] as const) {
        if (tenant === 'other' && row.other === undefined) continue;
        for (const caller of callerOrder(row)) {
          const expected = tenant === 'own' ? row.own(caller) : row.other!;
          const r = await send(route, row, tenant === 'own' ? own : other, caller, d.tokens[caller]);
          const mustList = expected === 'listed' ? listedId(route, own) : undefined;
          cells.push({ route, caller, tenant, credential: 'valid', expected, status: r.statusCode });
          if (!satisfies(expected, r.statusCode, r.body, mustList)) {
            failures.push(
              `${route} ${caller} ${tenant}: expected ${expected}, got ${r.statusCode} ${r.body.slice(0, 160)}`,
            );
          }
          const leaked = otherTenantIdsIn(
            r.body,
            own,
            other,
            JSON.stringify(row.request(tenant === 'own' ? own : other, caller, 0)),
          );
          if (leaked.length > 0)
            failures.push(`${route} ${caller} ${tenant}: another tenant's ids ${leaked.join(', ')}`);
        }
      }
      // No, expired and revoked credentials: 401 on every token route; the open routes ignore them.
      for (const credential of ['none', 'expired', 'revoked'] as const) {
        for (const caller of credential === 'none' ? (['nobody'] as Actor[]) : ACTORS) {
          const token = credential === 'none' ? undefined : bad[credential]![caller];
          const r = await send(route, row, own, caller, token);
          const expected = row.open ? row.own(caller) : undefined;
          cells.push({
            route,
            caller,
            tenant: 'own',
            credential,
            expected: expected ?? 'refused',
            status: r.statusCode,
          });
          const fine =
            expected === undefined ? r.statusCode === 401 : satisfies(expected, r.statusCode, r.body);
          if (!fine)
            failures.push(`${route} ${credential} ${caller}: got ${r.statusCode} ${r.body.slice(0, 160)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(d.violations(), 'responses against the OpenAPI document').toEqual([]);
    // The matrix really ran: every route, every caller, every credential state.
    expect(cells.length).toBeGreaterThan(Object.keys(TABLE).length * ACTORS.length * 3);
  });
});

/** Certificates whose subject looks like bot's `CN=bot, O=acme` and is not it (RFC 4514 text). */
const LOOKALIKES: [string, string][] = [
  ['trailing space', 'CN=bot\\ , O=acme'],
  ['leading space', 'CN=\\ bot, O=acme'],
  ['other case', 'CN=BOT, O=acme'],
  ['other case in O', 'CN=bot, O=Acme'],
  ['extra attribute', 'CN=bot, O=acme, OU=ops'],
  ['fewer attributes', 'CN=bot'],
  ['other order', 'O=acme, CN=bot'],
  ['multi-valued RDN', 'CN=bot+OU=ops, O=acme'],
  ['multi-valued RDN of the same parts', 'CN=bot+O=acme'],
  ['an escaped comma', 'CN=bot\\, O=acme'],
  ['a value with a newline', 'CN=bot\\0AO=acme'],
];

describe('the access matrix in mutual-TLS mode (real TLS listener, client certificates)', () => {
  let d: FullDaemon;
  let ids: Record<string, Ids>;
  let base: string;
  let certs: Record<string, IssuedCert>;
  let caPem: string;
  let serverCa: string;
  let close: () => Promise<void>;
  let mtlsConformance: { violations: () => string[] };
  const tmp = tmpDir('svc-mtls-');

  beforeAll(async () => {
    d = await fullDaemon();
    ids = await seedWorlds(d);
    const pki = await clientPki('matrix client CA');
    const rogue = await clientPki('rogue CA');
    caPem = pki.caPem;
    certs = {};
    for (const a of ACTORS) {
      const subject = `CN=${a}, O=acme`;
      d.f.store.db
        .prepare("UPDATE actors SET cert_subject = ? WHERE tenant_id = 'acme' AND id = ?")
        .run(normalizeSubject(subject), a);
      certs[a] = await pki.issue(subject);
    }
    certs.expired = await pki.issue('CN=bot, O=acme', { expired: true });
    certs.rogue = await rogue.issue('CN=alice, O=acme');
    certs.unmapped = await pki.issue('CN=stranger, O=acme');
    // Look-alikes of bot's registered `CN=bot, O=acme`: each is another subject.
    for (const [name, subject] of LOOKALIKES) certs[name] = await pki.issue(subject);
    // Registered the way an operator does (the text normalised once): a kept trailing space.
    await addActor(
      d.f.store,
      { tenantId: 'acme', id: 'spacey', kind: 'service', certSubject: 'CN=spacey\\ , O=acme' },
      d.f.now.value,
    );
    certs.spacey = await pki.issue('CN=spacey\\ , O=acme');
    certs.unspaced = await pki.issue('CN=spacey, O=acme');
    const caFile = `${tmp.path}/client-ca.pem`;
    (await import('node:fs')).writeFileSync(caFile, caPem);
    const https = tlsServerOptions({ cert: d.f.dir.tlsCert, key: d.f.dir.tlsKey, clientCa: caFile });
    serverCa = readFileSync(d.f.dir.tlsCert, 'utf8');
    const integration = parseIntegrationDocument(
      `surfaces:\n  - id: crm\n    adapter: http\n    base_url: ${d.ds.url}\n    credential_ref: env:SVC_FULL_OPS_TOKEN\n    credential_refs: [env:SVC_FULL_OPS_TOKEN]\n    auth: { type: bearer }\n    check: { method: GET, path: /health }\n    operations:\n      contacts.create: { method: POST, path: /contacts }\n`,
      'ops.yaml',
    );
    const deps = daemonDeps(d.f.dir, d.f.store, {
      authMode: 'mtls',
      clock: () => d.f.now.value,
      integration,
    });
    const app = buildDaemon(deps, { logger: false, https });
    mtlsConformance = watchConformance(app, daemonOpenApi(deps));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `https://localhost:${(app.server.address() as AddressInfo).port}`;
    close = async () => {
      await app.close();
      await d.close();
      tmp.cleanup();
    };
  });
  afterAll(async () => close());

  const agents = new Map<string, Agent>();
  const agentFor = (name: string | undefined) => {
    const key = name ?? 'none';
    let a = agents.get(key);
    if (!a) {
      const c = name === undefined ? undefined : certs[name];
      a = new Agent({ connect: { ca: serverCa, ...(c ? { cert: c.cert, key: c.key } : {}) } });
      agents.set(key, a);
    }
    return a;
  };
  afterAll(async () => {
    for (const a of agents.values()) await a.close();
  });

  const send = async (route: string, row: Row, caller: Actor, cert: string | undefined, headers = {}) => {
    const method = route.split(' ')[0] as 'GET' | 'POST';
    const req = row.request(ids.acme!, caller, Math.floor(Math.random() * 1e9));
    const r = await request(`${base}${req.url}`, {
      method,
      dispatcher: agentFor(cert),
      headers: { ...(req.payload ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(req.payload ? { body: JSON.stringify(req.payload) } : {}),
    });
    const body = await r.body.text();
    leakScan.check(body, `${route} over mTLS as ${caller}`);
    return { status: r.statusCode, body };
  };

  it('maps only an identical subject: look-alike subjects (spaces, case, order, extra or joined attributes) are 401', async () => {
    const whoami = async (cert: string) => {
      const r = await request(`${base}/v1/capabilities`, { dispatcher: agentFor(cert) });
      const body = (await r.body.json()) as { actor_id?: string; reason?: string };
      return { status: r.statusCode, body };
    };
    expect(await whoami('bot')).toMatchObject({ status: 200, body: { actor_id: 'bot' } });
    const mapped: string[] = [];
    for (const [name] of LOOKALIKES) {
      const r = await whoami(name);
      if (r.status !== 401) mapped.push(`${name}: ${r.status} as ${r.body.actor_id}`);
    }
    expect(mapped).toEqual([]);
    // The operator's text keeps an escaped space; the certificate must carry it, exactly.
    expect(await whoami('spacey')).toMatchObject({ status: 200, body: { actor_id: 'spacey' } });
    expect((await whoami('unspaced')).status).toBe(401);
  });

  it('a mapped certificate is the caller; bearer tokens, missing, foreign, expired and unmapped certificates are 401', async () => {
    let n = 0;
    const failures: string[] = [];
    for (const [route, row] of readsFirst()) {
      for (const caller of callerOrder(row)) {
        const expected = row.own(caller);
        const r = await send(route, row, caller, caller);
        const mustList = expected === 'listed' ? listedId(route, ids.acme!) : undefined;
        if (!satisfies(expected, r.status, r.body, mustList)) {
          failures.push(`${route} ${caller}: expected ${expected}, got ${r.status} ${r.body.slice(0, 160)}`);
        }
        n++;
      }
      const refusedCases: [string, string | undefined, Record<string, string>][] = [
        ['a valid bearer token', undefined, { authorization: `Bearer ${d.tokens.alice}` }],
        ['a valid token beside a valid certificate', 'alice', { 'x-svc-token': d.tokens.alice! }],
        ['no certificate', undefined, {}],
        ['an expired certificate', 'expired', {}],
        ['a certificate of a foreign CA', 'rogue', {}],
        ['an unmapped subject', 'unmapped', {}],
      ];
      for (const [what, cert, headers] of refusedCases) {
        const r = await send(route, row, 'alice', cert, headers);
        const fine = row.open ? satisfies(row.own('alice'), r.status, r.body) : r.status === 401;
        if (!fine) failures.push(`${route} with ${what}: got ${r.status} ${r.body.slice(0, 160)}`);
        n++;
      }
    }
    expect(failures).toEqual([]);
    expect(mtlsConformance.violations(), 'responses against the OpenAPI document').toEqual([]);
    expect(n).toBeGreaterThan(Object.keys(TABLE).length * (ACTORS.length + 5));
  });
});
