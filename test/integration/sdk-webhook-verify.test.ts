import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import { newWebhookSecret } from '../../src/notify/webhook-secret.js';
import { signWebhook } from '../../src/notify/webhook-signature.js';
import { verifyWebhook } from '../../src/sdk/index.js';
import { ROOT } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const run = promisify(execFile);

// The same vectors for the three SDKs, signed by our signer and by the standardwebhooks
// package: each SDK must accept exactly the genuine ones and name the same error otherwise.
interface Vector {
  name: string;
  headers: Record<string, string>;
  body: string;
  secret: string;
  /** unix seconds the verifier judges by */
  now: number;
  expect: string;
}

const flip = (s: string, at: number): string =>
  s.slice(0, at) + String.fromCharCode(s.charCodeAt(at) ^ 1) + s.slice(at + 1);

function vectors(): Vector[] {
  const secret = newWebhookSecret();
  const other = newWebhookSecret();
  const id = 'evt_01JWEBHOOKVECTOR000000000';
  const now = 1_800_000_000;
  const body = JSON.stringify({
    type: 'approval.requested',
    timestamp: '2027-01-15T08:00:00.000Z',
    data: { tenant_id: 'acme', approval_id: 'apr_1', amount: '99.90', note: 'naïve ☃' },
  });
  const ours = (b = body, at = now, secrets = [secret]): Record<string, string> => ({
    ...signWebhook(secrets, id, at, b),
  });
  const key = Buffer.from(secret.slice(6), 'base64');
  key[3] = key[3]! ^ 1;
  const v = (
    name: string,
    headers: Record<string, string>,
    expect: string,
    more: Partial<Vector> = {},
  ): Vector => ({
    name,
    headers,
    body,
    secret,
    now,
    expect,
    ...more,
  });
  return [
    v('ours', ours(), 'ok'),
    v(
      'standardwebhooks package',
      {
        'webhook-id': id,
        'webhook-timestamp': String(now),
        'webhook-signature': new Webhook(secret).sign(id, new Date(now * 1000), body),
      },
      'ok',
    ),
    v('rotated pair, ours second', ours(body, now, [other, secret]), 'ok'),
    v(
      'header names in any case',
      Object.fromEntries(Object.entries(ours()).map(([k, x]) => [k.toUpperCase(), x])),
      'ok',
    ),
    v('299 s old', ours(body, now - 299), 'ok'),
    v('one byte of the body changed', ours(), 'bad_signature', { body: flip(body, 30) }),
    v('one byte of the id changed', { ...ours(), 'webhook-id': flip(id, 10) }, 'bad_signature'),
    v(
      'the timestamp moved by one second',
      { ...ours(), 'webhook-timestamp': String(now + 1) },
      'bad_signature',
    ),
    v('one byte of the secret changed', ours(), 'bad_signature', {
      secret: `whsec_${key.toString('base64')}`,
    }),
    v('another secret only', ours(body, now, [other]), 'bad_signature'),
    v(
      'a v2 signature only',
      { ...ours(), 'webhook-signature': ours()['webhook-signature']!.replace('v1,', 'v2,') },
      'bad_signature',
    ),
    v('301 s old (a replay)', ours(body, now - 301), 'bad_timestamp'),
    v('301 s ahead', ours(body, now + 301), 'bad_timestamp'),
    v(
      'a timestamp that is not unix seconds',
      { ...ours(), 'webhook-timestamp': '2027-01-15T08:00:00Z' },
      'bad_timestamp',
    ),
    v('no signature header', { 'webhook-id': id, 'webhook-timestamp': String(now) }, 'missing_signature'),
    v('signed, but not an event', ours('[1,2,3]'), 'bad_request', { body: '[1,2,3]' }),
    v('a malformed secret', ours(), 'invalid_request', { secret: 'not-a-secret' }),
  ];
}

const expectedEvent = (vec: Vector) => ({
  id: vec.headers['webhook-id'] ?? vec.headers['WEBHOOK-ID'],
  ...JSON.parse(vec.body),
});

function check(results: { name: string; result: string; event?: unknown }[], vs: Vector[]): void {
  expect(results.map((r) => [r.name, r.result])).toEqual(vs.map((v) => [v.name, v.expect]));
  for (const [i, r] of results.entries())
    if (r.result === 'ok') expect(r.event).toEqual(expectedEvent(vs[i]!));
}

describe('verifyWebhook in the three SDKs, on the same vectors', () => {
  const dir = tmpDir('svc-webhook-');
  afterAll(() => dir.cleanup());
  const vs = vectors();
  const file = join(dir.path, 'vectors.json');
  writeFileSync(file, JSON.stringify(vs));

  it('TypeScript', () => {
    const results = vs.map((v) => {
      try {
        const event = verifyWebhook(v.headers, Buffer.from(v.body, 'utf8'), v.secret, {
          now: new Date(v.now * 1000),
        });
        return { name: v.name, result: 'ok', event };
      } catch (err) {
        if (!(err instanceof SvcError)) throw err;
        return { name: v.name, result: err.code };
      }
    });
    check(results, vs);
  });

  it('Python', async () => {
    const script = `
import json, sys
from svc_sdk import SvcError, verify_webhook
out = []
for v in json.load(open(sys.argv[1])):
    try:
        e = verify_webhook(v["headers"], v["body"].encode("utf-8"), v["secret"], now=v["now"])
        out.append({"name": v["name"], "result": "ok", "event": e})
    except SvcError as err:
        out.append({"name": v["name"], "result": err.code})
print(json.dumps(out))
`;
    const { stdout } = await run('python3', ['-c', script, file], {
      env: { ...process.env, PYTHONPATH: join(ROOT, 'src/sdk/python'), PYTHONDONTWRITEBYTECODE: '1' },
    });
    check(JSON.parse(stdout), vs);
  }, 60_000);

  it('Go', async () => {
    const mod = join(dir.path, 'gomod');
    mkdirSync(mod);
    writeFileSync(
      join(mod, 'go.mod'),
      `module vectors\n\ngo 1.19\n\nrequire svc/sdk v0.0.0\n\nreplace svc/sdk => ${join(ROOT, 'src/sdk/go')}\n`,
    );
    writeFileSync(
      join(mod, 'main.go'),
      `package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	svc "svc/sdk"
)

func main() {
	raw, _ := os.ReadFile(os.Args[1])
	var vs []struct {
		Name    string            \`json:"name"\`
		Headers map[string]string \`json:"headers"\`
		Body    string            \`json:"body"\`
		Secret  string            \`json:"secret"\`
		Now     int64             \`json:"now"\`
	}
	if err := json.Unmarshal(raw, &vs); err != nil {
		panic(err)
	}
	out := []map[string]interface{}{}
	for _, v := range vs {
		h := http.Header{}
		for k, x := range v.Headers {
			h.Set(k, x)
		}
		e, err := svc.VerifyWebhookAt(h, []byte(v.Body), v.Secret, time.Unix(v.Now, 0))
		var se *svc.Error
		switch {
		case err == nil:
			out = append(out, map[string]interface{}{"name": v.Name, "result": "ok", "event": e})
		case errors.As(err, &se):
			out = append(out, map[string]interface{}{"name": v.Name, "result": se.Code})
		default:
			panic(err)
		}
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}
`,
    );
    const env = {
      ...process.env,
      GOPROXY: 'off',
      GOFLAGS: '-mod=mod',
      GOCACHE: join(dir.path, 'build'),
      GOPATH: join(dir.path, 'gopath'),
    };
    const { stdout } = await run('go', ['run', '.', file], { cwd: mod, env });
    check(JSON.parse(stdout), vs);
  }, 240_000);
});
