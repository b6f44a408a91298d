import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runJson } from '../helpers/cli.js';
import { DEPLOYMENT as D, sdkHarness, type SdkHarness } from '../helpers/sdk-harness.js';

interface CallResult {
  content: { type: string; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** `svc mcp` with the MCP SDK's own client, over stdio and over streamable HTTP, against a real daemon. */
describe('MCP facade (svc mcp)', () => {
  let h: SdkHarness;
  let httpFacade: ChildProcess;
  let httpUrl: string;
  let n = 0;
  const step = (tag: string) => `mcp-${tag}-${h.env.SVC_TEST_RUN}-${++n}`;
  const daemonEnv = () => ({ SVC_ENDPOINT: h.env.SVC_ENDPOINT!, SVC_CA_CERT: h.env.SVC_CA_CERT! });

  beforeAll(async () => {
    h = await sdkHarness('reports.mcp');
    httpFacade = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0'], {
      cwd: ROOT,
      env: { ...process.env, ...daemonEnv(), SVC_TOKEN: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    httpUrl = await new Promise<string>((resolve, reject) => {
      let err = '';
      httpFacade.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /listening on (\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      httpFacade.on('close', (code) => reject(new Error(`svc mcp --http exited ${code}: ${err}`)));
    });
  });
  afterAll(async () => {
    httpFacade?.kill('SIGTERM');
    await h?.close();
  });

  const transports: Record<string, () => Transport> = {
    stdio: () =>
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        cwd: ROOT,
        env: { ...(process.env as Record<string, string>), ...daemonEnv(), SVC_TOKEN: h.env.SVC_TOKEN! },
        stderr: 'pipe',
      }),
    http: () =>
      new StreamableHTTPClientTransport(new URL(httpUrl), {
        requestInit: { headers: { authorization: `Bearer ${h.env.SVC_TOKEN}` } },
      }),
  };

  for (const [name, transport] of Object.entries(transports)) {
    it(`over ${name}: lists tools, calls allowed, refused and deferred tools, approves, resumes`, async () => {
      const client = new Client({ name: 'svc-test', version: '1.0.0' });
      await client.connect(transport());
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(
          [D.allowed, D.irreversible, D.brokered, D.brokeredIrreversible, D.passThrough, 'resume'].sort(),
        );
        const read = tools.find((t) => t.name === D.allowed)!;
        expect(read.inputSchema).toMatchObject({
          properties: { action: { enum: ['read'] } },
          required: ['action', 'task_id', 'effect_key_step'],
        });
        const call = async (tool: string, args: Record<string, unknown>) =>
          (await client.callTool({ name: tool, arguments: args })) as CallResult;

        const allowed = await call(D.allowed, {
          action: 'read',
          task_id: D.task,
          effect_key_step: step(name),
        });
        expect(allowed.isError).toBe(false);
        expect(allowed.content[0]!.text).toMatch(/^allowed: intent int_\w+; grant grt_/);

        const brokered = await call(D.brokered, {
          action: 'write',
          task_id: D.task,
          effect_key_step: step(name),
          params: { team: 'mcp', name: 'Ada' },
        });
        expect(brokered.content[0]!.text).toMatch(
          /executed: the provider answered succeeded \(effect c-\d+\)/,
        );
        expect(h.provider.calls.at(-1)).toMatchObject({ url: '/contacts/mcp' });

        const refused = await call(D.allowed, {
          action: 'read',
          task_id: D.task,
          effect_key_step: step(name),
          amount_usd: 5000,
        });
        expect(refused.isError).toBe(true);
        expect(refused.content[0]!.text).toMatch(/^refused \(budget_exceeded\): .*Remedy: .*budget/);
        expect(refused.structuredContent).toMatchObject({
          outcome: 'refused',
          receipt: { outcome: 'refused' },
        });

        const ask = { action: 'write', task_id: D.task, effect_key_step: step(name), amount_usd: 1 };
        const deferred = await call(D.irreversible, ask);
        expect(deferred.isError).toBe(false);
        expect(deferred.content[0]!.text).toMatch(/^awaiting approval apr_\w+: .* call the resume tool/);
        const how = deferred.structuredContent as {
          approval_id: string;
          resume: { tool: string; arguments: Record<string, unknown> };
        };
        expect(how.resume).toEqual({ tool: 'resume', arguments: { capability: D.irreversible, ...ask } });
        const early = await call('resume', how.resume.arguments);
        expect(early.structuredContent.outcome).toBe('deferred');

        await runJson(['approvals', 'approve', how.approval_id], {
          ...daemonEnv(),
          SVC_TOKEN: h.env.SVC_TEST_APPROVER_TOKEN!,
        });
        const resumed = await call('resume', how.resume.arguments);
        expect(resumed.isError).toBe(false);
        expect(resumed.content[0]!.text).toMatch(/^allowed: intent/);

        const conflict = await call(D.irreversible, ask);
        expect(conflict.content[0]!.text).toMatch(/^conflict \(duplicate_effect\).*Do not bypass/);

        const bad = await call(D.allowed, {
          action: 'read',
          task_id: D.task,
          effect_key_step: step(name),
          colour: 'red',
        });
        expect(bad).toMatchObject({ isError: true, structuredContent: { code: 'invalid_request' } });
        expect(bad.content[0]!.text).toMatch(/colour: unknown field/);
      } finally {
        await client.close();
      }
    });
  }

  it('over stdio, a daemon that cannot be reached is an error, never an empty tool list', async () => {
    const client = new Client({ name: 'svc-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        cwd: ROOT,
        env: {
          ...(process.env as Record<string, string>),
          SVC_ENDPOINT: 'https://127.0.0.1:1',
          SVC_TOKEN: 'x',
        },
        stderr: 'pipe',
      }),
    );
    try {
      await expect(client.listTools()).rejects.toThrow(/not reachable/);
    } finally {
      await client.close();
    }
  });

  it('over HTTP, no token, a foreign Host or Origin is refused before anything reaches the daemon', async () => {
    const post = (headers: Record<string, string>) =>
      request(httpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const port = new URL(httpUrl).port;
    expect((await post({})).statusCode).toBe(401);
    expect(
      (await post({ authorization: `Bearer ${h.env.SVC_TOKEN}`, host: `evil.example:${port}` })).statusCode,
    ).toBe(403);
    expect(
      (await post({ authorization: `Bearer ${h.env.SVC_TOKEN}`, origin: 'https://evil.example' })).statusCode,
    ).toBe(403);
    const stranger = new Client({ name: 'svc-test', version: '1.0.0' });
    await stranger.connect(
      new StreamableHTTPClientTransport(new URL(httpUrl), {
        requestInit: { headers: { authorization: 'Bearer svc_not-a-token' } },
      }),
    );
    try {
      await expect(stranger.listTools()).rejects.toThrow(/credential|token|authenticat/i);
    } finally {
      await stranger.close();
    }
  });
});
