/** Self-signed CA, server and admin client certificates generated with the `openssl` command. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SandboxError } from './errors.js';
import { text } from './util.js';

const run = promisify(execFile);

/** PEM material of one sandbox. */
export interface TlsMaterial {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd });
  } catch (err) {
    const e = err as { code?: unknown; stderr?: unknown; message?: string };
    if (e.code === 'ENOENT')
      throw new SandboxError(
        'OPENSSL_MISSING',
        'the openssl command is required to generate sandbox TLS certificates; install it (apt-get install openssl) or start the sandbox with tls: false',
      );
    throw new SandboxError('OPENSSL_FAILED', `openssl ${args[0] ?? ''} failed: ${text(e.stderr ?? e.message)}`);
  }
}

/** Generates a CA, a server certificate for 127.0.0.1/localhost and an admin client certificate (system:masters). */
export async function generateTls(user = 'keelson-admin'): Promise<TlsMaterial> {
  const dir = await mkdtemp(join(tmpdir(), 'keelson-sandbox-tls-'));
  try {
    const days = '3650';
    await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
    await openssl(
      [
        'req',
        '-x509',
        '-new',
        '-key',
        'ca.key',
        '-sha256',
        '-days',
        days,
        '-subj',
        '/CN=keelson-sandbox-ca',
        '-out',
        'ca.crt',
      ],
      dir,
    );
    await writeFile(
      join(dir, 'server.ext'),
      'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n',
    );
    await writeFile(
      join(dir, 'client.ext'),
      'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n',
    );
    await Promise.all([
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'server.key'], dir),
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'client.key'], dir),
    ]);
    await Promise.all([
      openssl(['req', '-new', '-key', 'server.key', '-subj', '/CN=127.0.0.1', '-out', 'server.csr'], dir),
      openssl(
        ['req', '-new', '-key', 'client.key', '-subj', `/O=system:masters/CN=${user}`, '-out', 'client.csr'],
        dir,
      ),
    ]);
    await Promise.all([
      openssl(
        [
          'x509',
          '-req',
          '-in',
          'server.csr',
          '-CA',
          'ca.crt',
          '-CAkey',
          'ca.key',
          '-CAcreateserial',
          '-days',
          days,
          '-sha256',
          '-extfile',
          'server.ext',
          '-out',
          'server.crt',
        ],
        dir,
      ),
      openssl(
        [
          'x509',
          '-req',
          '-in',
          'client.csr',
          '-CA',
          'ca.crt',
          '-CAkey',
          'ca.key',
          '-set_serial',
          '2',
          '-days',
          days,
          '-sha256',
          '-extfile',
          'client.ext',
          '-out',
          'client.crt',
        ],
        dir,
      ),
    ]);
    const r = (f: string): Promise<string> => readFile(join(dir, f), 'utf8');
    return {
      caCert: await r('ca.crt'),
      caKey: await r('ca.key'),
      serverCert: await r('server.crt'),
      serverKey: await r('server.key'),
      clientCert: await r('client.crt'),
      clientKey: await r('client.key'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Generates a self-signed CA certificate (EC P-256) with subject `subject` (`/OU=openshift/CN=root-ca`); returns its PEM. */
export async function generateCaCert(subject: string, days = 3650): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'keelson-sandbox-ca-'));
  try {
    await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
    await openssl(
      ['req', '-x509', '-new', '-key', 'ca.key', '-sha256', '-days', String(days), '-subj', subject, '-out', 'ca.crt'],
      dir,
    );
    return await readFile(join(dir, 'ca.crt'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
