import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tmpDir } from './tmp.js';

const run = promisify(execFile);

/**
 * A real RFC 3161 authority for tests: Debian's `openssl ts -reply` behind a loopback HTTP
 * server, signing with a TSA certificate (timeStamping EKU, critical) issued by a test CA,
 * both made by openssl here. `mode`: `grant` answers every query; `reject` supports only
 * SHA-512 imprints, so the SHA-256 queries the daemon sends are answered with a rejection;
 * `replay` answers every query with the first response it made; `sha1` signs with SHA-1.
 */
export interface TestTsa {
  url: string;
  /** DER of the CA that issued the TSA certificate, and of an unrelated CA. */
  rootDer: Uint8Array;
  otherRootDer: Uint8Array;
  rootPemFile: string;
  otherRootPemFile: string;
  requests: number;
  /**
   * The same TSTInfo re-signed (openssl cms) by a certificate of the same CA whose extended
   * key usage is serverAuth, not timeStamping: a token only the EKU check refuses.
   */
  resignWithoutTimestampingEku: (token: string) => string;
  close: () => Promise<void>;
}

/** DER length octets. */
function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.of(n);
  const bytes: number[] = [];
  for (let x = n; x > 0; x = Math.floor(x / 256)) bytes.unshift(x % 256);
  return Buffer.of(0x80 | bytes.length, ...bytes);
}

const CONFIG = (digests: string, signerDigest: string) => `
[ tsa ]
default_tsa = tsa_config1
[ tsa_config1 ]
dir = .
serial = ./tsaserial
crypto_device = builtin
signer_cert = ./tsa.crt
certs = ./tsa.crt
signer_key = ./tsa.key
signer_digest = ${signerDigest}
default_policy = 1.2.3.4.1
digests = ${digests}
accuracy = secs:1
ordering = yes
tsa_name = no
ess_cert_id_chain = no
ess_cert_id_alg = sha256
[ tsa_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,timeStamping
`;

function makeCa(dir: string, name: string): void {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(dir, `${name}.key`),
      '-out',
      join(dir, `${name}.crt`),
      '-days',
      '30',
      '-subj',
      `/CN=svc test ${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    { stdio: 'ignore' },
  );
}

const derOf = (pemFile: string): Uint8Array =>
  new Uint8Array(execFileSync('openssl', ['x509', '-in', pemFile, '-outform', 'DER']));

export async function startTestTsa(mode: 'grant' | 'reject' | 'replay' | 'sha1' = 'grant'): Promise<TestTsa> {
  const tmp = tmpDir('svc-tsa-');
  const dir = tmp.path;
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  execFileSync(
    'openssl',
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(dir, 'tsa.key'),
      '-out',
      join(dir, 'tsa.csr'),
      '-subj',
      '/CN=svc test TSA',
    ],
    { stdio: 'ignore' },
  );
  writeFileSync(
    join(dir, 'tsa.cnf'),
    CONFIG(mode === 'reject' ? 'sha512' : 'sha256, sha384, sha512', mode === 'sha1' ? 'sha1' : 'sha256'),
  );
  execFileSync(
    'openssl',
    [
      'x509',
      '-req',
      '-in',
      join(dir, 'tsa.csr'),
      '-CA',
      join(dir, 'ca.crt'),
      '-CAkey',
      join(dir, 'ca.key'),
      '-CAcreateserial',
      '-out',
      join(dir, 'tsa.crt'),
      '-days',
      '30',
      '-extfile',
      join(dir, 'tsa.cnf'),
      '-extensions',
      'tsa_ext',
    ],
    { stdio: 'ignore' },
  );
  writeFileSync(join(dir, 'tsaserial'), '01\n');

  let first: Buffer | undefined;
  let counter = 0;
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        state.requests += 1;
        const n = ++counter;
        const query = join(dir, `q${n}.tsq`);
        const reply = join(dir, `r${n}.tsr`);
        writeFileSync(query, Buffer.concat(chunks));
        // openssl exits non-zero after writing a rejection; the reply file is what counts.
        await run('openssl', ['ts', '-reply', '-config', 'tsa.cnf', '-queryfile', query, '-out', reply], {
          cwd: dir,
        }).catch(() => undefined);
        if (!existsSync(reply)) {
          res.writeHead(500).end();
          return;
        }
        const body = readFileSync(reply);
        first ??= body;
        res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
        res.end(mode === 'replay' ? first : body);
        rmSync(query, { force: true });
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/tsr`,
    rootDer: derOf(join(dir, 'ca.crt')),
    otherRootDer: derOf(join(dir, 'other-ca.crt')),
    rootPemFile: join(dir, 'ca.crt'),
    otherRootPemFile: join(dir, 'other-ca.crt'),
    get requests() {
      return state.requests;
    },
    resignWithoutTimestampingEku: (token) => {
      const file = (name: string) => join(dir, name);
      if (!existsSync(file('eku.crt'))) {
        execFileSync(
          'openssl',
          [
            'req',
            '-newkey',
            'ec',
            '-pkeyopt',
            'ec_paramgen_curve:P-256',
            '-nodes',
            '-keyout',
            file('eku.key'),
            '-out',
            file('eku.csr'),
            '-subj',
            '/CN=not a TSA',
          ],
          { stdio: 'ignore' },
        );
        writeFileSync(
          file('eku.ext'),
          '[e]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
        );
        execFileSync(
          'openssl',
          [
            'x509',
            '-req',
            '-in',
            file('eku.csr'),
            '-CA',
            file('ca.crt'),
            '-CAkey',
            file('ca.key'),
            '-CAcreateserial',
            '-out',
            file('eku.crt'),
            '-days',
            '30',
            '-extfile',
            file('eku.ext'),
            '-extensions',
            'e',
          ],
          { stdio: 'ignore' },
        );
      }
      writeFileSync(file('in.tsr'), Buffer.from(token, 'base64'));
      execFileSync('openssl', ['ts', '-reply', '-in', file('in.tsr'), '-token_out', '-out', file('in.tok')], {
        stdio: 'ignore',
      });
      execFileSync(
        'openssl',
        ['cms', '-verify', '-inform', 'DER', '-in', file('in.tok'), '-noverify', '-out', file('tst.der')],
        { stdio: 'ignore' },
      );
      execFileSync(
        'openssl',
        [
          'cms',
          '-sign',
          '-binary',
          '-nodetach',
          '-econtent_type',
          '1.2.840.113549.1.9.16.1.4',
          '-signer',
          file('eku.crt'),
          '-inkey',
          file('eku.key'),
          '-md',
          'sha256',
          '-in',
          file('tst.der'),
          '-outform',
          'DER',
          '-out',
          file('out.tok'),
        ],
        { stdio: 'ignore' },
      );
      // TimeStampResp ::= SEQUENCE { status PKIStatusInfo (granted), timeStampToken }
      const body = Buffer.concat([Buffer.from('3003020100', 'hex'), readFileSync(file('out.tok'))]);
      return Buffer.concat([Buffer.of(0x30), derLength(body.length), body]).toString('base64');
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      tmp.cleanup();
    },
  };
}
