import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import type { IssuedCert } from './client-pki.js';

export interface ServerPki {
  caPem: string;
  /** a server certificate for 127.0.0.1 and localhost, valid around now unless told otherwise */
  issue: (cn: string, opts?: { expired?: boolean; notYetValid?: boolean }) => Promise<IssuedCert>;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY = 86_400_000;
type Keys = x509.X509CertificateCreateSelfSignedParams['keys'];

const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(12)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

const keyPair = async (): Promise<Keys> =>
  (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as Keys;

/** A CA and the listener certificates it signs, made in-process with @peculiar/x509. */
export async function serverPki(name: string, now = new Date()): Promise<ServerPki> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const caKeys = await keyPair();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: new Date(now.getTime() - 10 * DAY),
    notAfter: new Date(now.getTime() + 10 * DAY),
    signingAlgorithm: ALG,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  return {
    caPem: ca.toString('pem'),
    issue: async (cn, opts = {}) => {
      const keys = await keyPair();
      const from = opts.notYetValid ? DAY : opts.expired ? -3 * DAY : -DAY;
      const to = opts.notYetValid ? 2 * DAY : opts.expired ? -DAY : DAY;
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: `CN=${cn}`,
        issuer: ca.subject,
        notBefore: new Date(now.getTime() + from),
        notAfter: new Date(now.getTime() + to),
        signingAlgorithm: ALG,
        publicKey: keys.publicKey,
        signingKey: caKeys.privateKey,
        extensions: [
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension([
            { type: 'ip', value: '127.0.0.1' },
            { type: 'dns', value: 'localhost' },
          ]),
        ],
      });
      const der = await webcrypto.subtle.exportKey(
        'pkcs8',
        keys.privateKey as unknown as webcrypto.CryptoKey,
      );
      return { cert: cert.toString('pem'), key: x509.PemConverter.encode(der, 'PRIVATE KEY') };
    },
  };
}
