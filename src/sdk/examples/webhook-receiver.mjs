// A webhook receiver: checks each delivery with the SDK's verifyWebhook, answers 204 to a
// genuine event (401 otherwise), and prints one line per delivery.
//   WEBHOOK_SECRET=whsec_… node src/sdk/examples/webhook-receiver.mjs [127.0.0.1:9911]
// It reads the body as bytes (the signature covers them exactly), bounds it, and drops a
// repeated event id: delivery is at least once.
import { createServer } from 'node:http';
import { SvcError, verifyWebhook } from 'svc/sdk';

const MAX_BODY = 1024 * 1024;
const secret = process.env.WEBHOOK_SECRET ?? '';
if (!secret.startsWith('whsec_')) {
  console.error("WEBHOOK_SECRET: expected the destination's secret (whsec_…)");
  process.exit(2);
}
const listen = process.argv[2] ?? '127.0.0.1:0';
const at = listen.lastIndexOf(':');
const host = listen.slice(0, at);
const port = Number(listen.slice(at + 1));
const seen = new Set();

const server = createServer((req, res) => {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size > MAX_BODY) {
      res.writeHead(413).end();
      req.destroy();
    } else chunks.push(c);
  });
  req.on('end', () => {
    try {
      const event = verifyWebhook(req.headers, Buffer.concat(chunks), secret);
      const again = seen.has(event.id);
      seen.add(event.id);
      console.log(`${again ? 'duplicate' : 'verified'} ${event.type} ${event.id}`);
      res.writeHead(204).end();
    } catch (err) {
      if (!(err instanceof SvcError)) throw err;
      console.log(`refused ${err.code}`);
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ code: err.code }));
    }
  });
});
server.listen(port, host, () => {
  const a = server.address();
  console.log(`webhook receiver listening on http://${a.address}:${a.port}`);
});
