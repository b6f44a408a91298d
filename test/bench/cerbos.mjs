// The peer: the Cerbos policy decision point (Go), installed on demand from npm (never a
// dependency of svc), with a disk policy store, its audit log on (the `local` backend, an
// embedded store on disk) and a policy equivalent to the one svc decides with in the
// comparison: principal with roles and attributes, resource with attributes, one action,
// an amount limit.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CERBOS_PACKAGE = '@cerbos/cerbos-linux-x64';
export const CERBOS_VERSION = '0.55.0';

/** Where the peer is installed, once per machine (BENCH_PEER_DIR overrides it). */
export function peerDir() {
  return process.env.BENCH_PEER_DIR ?? join(tmpdir(), 'svc-bench-peer', `cerbos-${CERBOS_VERSION}`);
}

/** `{ bin }`, or `{ skip }` saying why the peer cannot run here. */
export function installCerbos() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { skip: `${CERBOS_PACKAGE} is built for linux-x64, this is ${process.platform}-${process.arch}` };
  }
  const dir = peerDir();
  const bin = join(dir, 'node_modules', ...CERBOS_PACKAGE.split('/'), 'cerbos-linux-x64');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const npm = spawnSync(
      'npm',
      [
        'install',
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--prefix',
        dir,
        `${CERBOS_PACKAGE}@${CERBOS_VERSION}`,
      ],
      { encoding: 'utf8', timeout: 300_000 },
    );
    if (npm.status !== 0 || !existsSync(bin)) {
      const why = (npm.stderr || npm.error?.message || `npm exited ${npm.status}`)
        .trim()
        .split('\n')
        .slice(-3);
      return { skip: `npm install ${CERBOS_PACKAGE}@${CERBOS_VERSION} failed: ${why.join(' ')}` };
    }
  }
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0 || !version.stdout.startsWith(CERBOS_VERSION)) {
    return { skip: `${bin} --version did not report ${CERBOS_VERSION}: ${version.stderr || version.stdout}` };
  }
  return { bin };
}

// svc's side of the comparison runs the example policy (src/policy/example-policy.ts):
// agents below tier 3 with a manager may act, nothing over 1000 USD, irreversible only
// brokered. The same rules for Cerbos; Cerbos has no request context, so the request's
// amount and route travel as resource attributes.
const POLICY = `apiVersion: api.cerbos.dev/v1
resourcePolicy:
  version: default
  resource: capability
  rules:
    - name: agents-below-tier-3
      actions: ["read"]
      effect: EFFECT_ALLOW
      roles: ["agent"]
      condition:
        match:
          all:
            of:
              - expr: request.resource.attr.tier < 3
              - expr: has(request.principal.attr.manager)
    - name: human-operators
      actions: ["*"]
      effect: EFFECT_ALLOW
      roles: ["operator"]
    - name: per-action-limit
      actions: ["*"]
      effect: EFFECT_DENY
      roles: ["*"]
      condition:
        match:
          expr: request.resource.attr.amount_micros > 1000000000
    - name: irreversible-brokered-only
      actions: ["*"]
      effect: EFFECT_DENY
      roles: ["*"]
      condition:
        match:
          all:
            of:
              - expr: request.resource.attr.irreversible
              - expr: request.resource.attr.route != "brokered"
`;

/**
 * One check of the same shape as svc's request: one principal, one resource, one action,
 * for `amountMicros` (the repeat workload's 0.01 USD unless given).
 */
export function cerbosCheck(n, amountMicros = 10_000) {
  return JSON.stringify({
    requestId: `bench-${n}`,
    principal: { id: 'bench-agent', roles: ['agent'], attr: { kind: 'agent', manager: 'admin' } },
    resources: [
      {
        actions: ['read'],
        resource: {
          kind: 'capability',
          id: 'bench.read',
          attr: {
            tier: 0,
            irreversible: false,
            amount_micros: amountMicros,
            route: 'action',
            task_id: 'bench',
          },
        },
      },
    ],
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts the PDP on loopback; resolves `{ url, stop }` once it answers its health check. */
export async function startCerbos(bin) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-cerbos-'));
  mkdirSync(join(home, 'policies'));
  writeFileSync(join(home, 'policies', 'capability.yaml'), POLICY);
  const [http, grpc, debug] = [await freePort(), await freePort(), await freePort()];
  writeFileSync(
    join(home, 'config.yaml'),
    `server:
  httpListenAddr: "127.0.0.1:${http}"
  grpcListenAddr: "127.0.0.1:${grpc}"
storage:
  driver: disk
  disk:
    directory: "${join(home, 'policies')}"
    watchForChanges: false
audit:
  enabled: true
  accessLogsEnabled: true
  decisionLogsEnabled: true
  backend: local
  local:
    storagePath: "${join(home, 'audit')}"
    retentionPeriod: 24h
telemetry:
  disabled: true
`,
  );
  const child = spawn(
    bin,
    [
      'server',
      `--config=${join(home, 'config.yaml')}`,
      '--log-level=error',
      `--debug-listen-addr=127.0.0.1:${debug}`,
    ],
    { cwd: home, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${http}`;
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    rmSync(home, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`cerbos exited ${child.exitCode}: ${stderr.trim()}`);
    }
    try {
      const r = await fetch(`${url}/_cerbos/health`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`cerbos did not become healthy within 30 s: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // The comparison only means something if the peer allows, as svc does.
  const answer = await (
    await fetch(`${url}/api/check/resources`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: cerbosCheck(0),
    })
  ).json();
  const effect = answer?.results?.[0]?.actions?.read;
  if (effect !== 'EFFECT_ALLOW') {
    await stop();
    throw new Error(`cerbos answered ${JSON.stringify(answer)}, expected read to be EFFECT_ALLOW`);
  }
  return { url, stop, auditPath: join(home, 'audit') };
}
