import { webcrypto, X509Certificate } from 'node:crypto';
// @peculiar/x509 builds on tsyringe, which throws at load time without the Reflect metadata
// polyfill: it must be imported first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

export interface DeploymentCertificate {
  certPem: string;
  keyPem: string;
  fingerprint256: string;
  notAfter: string;
}

/**
 * The self-signed deployment certificate `svc init` makes: ECDSA P-256, valid for the
 * loopback names the daemon and console listen on by default (plus any the operator adds).
 * It is its own trust anchor: clients retain this file (SVC_CA_CERT) and trust nothing else.
 * It is a leaf (cA=false, digitalSignature, serverAuth only): it cannot issue certificates.
 */
export async function createDeploymentCertificate(opts: {
  now: Date;
  validDays?: number;
  hostnames?: string[];
  ips?: string[];
}): Promise<DeploymentCertificate> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, [
    'sign',
    'verify',
  ])) as unknown as x509.X509CertificateCreateSelfSignedParams['keys'];
  const notBefore = new Date(opts.now.getTime() - 60_000);
  const notAfter = new Date(opts.now.getTime() + (opts.validDays ?? 825) * 86_400_000);
  const names = [
    ...(opts.hostnames ?? ['localhost']).map((value) => ({ type: 'dns' as const, value })),
    ...(opts.ips ?? ['127.0.0.1', '::1']).map((value) => ({ type: 'ip' as const, value })),
  ];
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    name: 'CN=svc deployment',
    notBefore,
    notAfter,
    signingAlgorithm: alg,
    keys,
    extensions: [
      // A leaf, not a CA: a stolen key can impersonate this server's names, never sign others.
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = Buffer.from(
    await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as unknown as webcrypto.CryptoKey),
  );
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
  const certPem = cert.toString('pem') + '\n';
  const parsed = new X509Certificate(certPem);
  return { certPem, keyPem, fingerprint256: parsed.fingerprint256, notAfter: notAfter.toISOString() };
}
