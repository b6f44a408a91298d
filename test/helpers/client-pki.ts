import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

export interface IssuedCert {
  cert: string;
  key: string;
}

export interface ClientPki {
  caPem: string;
  /** a client certificate for `subject` (e.g. `CN=bot, O=acme`), valid for `validMs` around now, or expired */
  issue: (subject: string, opts?: { expired?: boolean }) => Promise<IssuedCert>;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
type Keys = x509.X509CertificateCreateSelfSignedParams['keys'];

const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(12)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

async function keyPair(): Promise<Keys> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as Keys;
}

async function keyPem(keys: Keys): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as unknown as webcrypto.CryptoKey);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/** A client CA and the client certificates it signs, made in-process with @peculiar/x509. */
export async function clientPki(name: string, now = new Date()): Promise<ClientPki> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const caKeys = await keyPair();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: new Date(now.getTime() - 86_400_000),
    notAfter: new Date(now.getTime() + 86_400_000),
    signingAlgorithm: ALG,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  return {
    caPem: ca.toString('pem'),
    issue: async (subject, opts = {}) => {
      const keys = await keyPair();
      const day = 86_400_000;
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject,
        issuer: ca.subject,
        notBefore: new Date(now.getTime() - (opts.expired ? 3 * day : day)),
        notAfter: new Date(now.getTime() + (opts.expired ? -day : day)),
        signingAlgorithm: ALG,
        publicKey: keys.publicKey,
        signingKey: caKeys.privateKey,
        extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
      });
      return { cert: cert.toString('pem'), key: await keyPem(keys) };
    },
  };
}
