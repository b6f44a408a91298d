import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a vendor server received, as it arrived. */
export interface VendorRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  raw: string;
  /** the JSON body, or the form fields of a form body */
  body: Record<string, unknown>;
}

/** An answer a test scripts for the next request(s); `hang` never answers (a time-out). */
export type Scripted = { status: number; json?: unknown; text?: string } | 'hang';

abstract class VendorServer {
  readonly got: VendorRequest[] = [];
  /** answers for the next requests, in order, before the server's own */
  readonly script: Scripted[] = [];
  url = '';
  private server: Server | undefined;
  private readonly hung: ServerResponse[] = [];

  protected abstract answer(r: VendorRequest): { status: number; json: unknown };

  async start(): Promise<this> {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const contentType = req.headers['content-type'];
        let body: Record<string, unknown> = {};
        if (contentType?.startsWith('application/x-www-form-urlencoded'))
          body = Object.fromEntries(new URLSearchParams(raw));
        else if (raw !== '') body = JSON.parse(raw) as Record<string, unknown>;
        const r: VendorRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          authorization: req.headers.authorization,
          contentType,
          raw,
          body,
        };
        this.got.push(r);
        const scripted = this.script.shift();
        if (scripted === 'hang') {
          this.hung.push(res);
          return;
        }
        if (scripted !== undefined) {
          res.writeHead(scripted.status, { 'content-type': 'application/json' });
          res.end(scripted.text ?? JSON.stringify(scripted.json ?? {}));
          return;
        }
        const a = this.answer(r);
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(a.json));
      });
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const r of this.hung) r.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((ok) => this.server?.close(() => ok()));
  }
}

/**
 * The team chat's Web API (Slack shape) on loopback: `chat.postMessage` answers the channel
 * id (a user id posts into the bot's direct conversation with that user, `D…`) and a new
 * `ts`; `chat.update` answers the channel and `ts` it was given. A bearer other than `token`
 * is `invalid_auth`, as the platform answers it: HTTP 200 with `ok: false`.
 */
export class ChatApiServer extends VendorServer {
  private n = 0;
  /** what each `chat.postMessage` answered: the channel and `ts` an update must name */
  readonly answered = new Map<VendorRequest, { channel: string; ts: string }>();
  constructor(readonly token: string) {
    super();
  }

  get base(): string {
    return `${this.url}/api`;
  }

  posts(): VendorRequest[] {
    return this.got.filter((r) => r.path === '/api/chat.postMessage');
  }

  updates(): VendorRequest[] {
    return this.got.filter((r) => r.path === '/api/chat.update');
  }

  protected answer(r: VendorRequest): { status: number; json: unknown } {
    if (r.method !== 'POST') return { status: 405, json: { ok: false, error: 'method_not_allowed' } };
    if (r.authorization !== `Bearer ${this.token}`)
      return { status: 200, json: { ok: false, error: 'invalid_auth' } };
    const channel = String(r.body.channel ?? '');
    if (r.path === '/api/chat.postMessage') {
      this.n++;
      const posted = channel.startsWith('U') ? `D${channel.slice(1)}` : channel.replace(/^#.*/, 'C0NAMED');
      const ts = `1700000000.${String(this.n).padStart(6, '0')}`;
      this.answered.set(r, { channel: posted, ts });
      return { status: 200, json: { ok: true, channel: posted, ts } };
    }
    if (r.path === '/api/chat.update') return { status: 200, json: { ok: true, channel, ts: r.body.ts } };
    return { status: 404, json: { ok: false, error: 'unknown_method' } };
  }
}

/**
 * The collaboration suite on loopback: an OAuth 2.0 client-credentials token endpoint
 * (`/oauth/token`) and a Bot Framework connector (`/v3/conversations/{id}/activities`). The
 * connector takes only a token the endpoint issued and has not revoked, else 401.
 */
export class CollabServer extends VendorServer {
  private n = 0;
  readonly issued: string[] = [];
  readonly revoked = new Set<string>();
  expiresIn = 3600;

  constructor(
    readonly clientId: string,
    readonly clientSecret: string,
  ) {
    super();
  }

  get tokenUrl(): string {
    return `${this.url}/oauth/token`;
  }

  tokenRequests(): VendorRequest[] {
    return this.got.filter((r) => r.path === '/oauth/token');
  }

  activityRequests(): VendorRequest[] {
    return this.got.filter((r) => r.path.startsWith('/v3/'));
  }

  protected answer(r: VendorRequest): { status: number; json: unknown } {
    if (r.path === '/oauth/token') {
      if (
        r.body.grant_type !== 'client_credentials' ||
        r.body.client_id !== this.clientId ||
        r.body.client_secret !== this.clientSecret
      )
        return { status: 401, json: { error: 'invalid_client' } };
      const token = `bot-token-${this.issued.length + 1}`;
      this.issued.push(token);
      return { status: 200, json: { token_type: 'Bearer', expires_in: this.expiresIn, access_token: token } };
    }
    const token = r.authorization?.replace(/^Bearer /, '') ?? '';
    if (!this.issued.includes(token) || this.revoked.has(token)) return { status: 401, json: {} };
    const m = /^\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(r.path);
    if (!m) return { status: 404, json: {} };
    if (r.method === 'POST' && m[2] === undefined) return { status: 201, json: { id: `act-${++this.n}` } };
    if (r.method === 'PUT' && m[2] !== undefined)
      return { status: 200, json: { id: decodeURIComponent(m[2]) } };
    return { status: 405, json: {} };
  }
}
