/**
 * Test helper: throw-away certificates made with the REAL `openssl` (a CA, a server certificate for the names given,
 * a client certificate), and a free loopback port. The TLS tests serve them with Debian's `docker-registry`.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Files of {@link makeTestPki}, all in its directory. */
export interface TestPki {
  dir: string;
  /** `ca.pem`, and its text. */
  caFile: string;
  caPem: string;
  /** `server.pem` / `server.key`. */
  serverCert: string;
  serverKey: string;
}

async function openssl(dir: string, ...args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir });
}

/** Signs `<name>.csr` with the CA of `dir` into `<name>.pem` with the extensions `ext` (2 days). */
async function sign(dir: string, name: string, ext: string): Promise<void> {
  await writeFile(join(dir, `${name}.cnf`), ext);
  await openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${name}.pem`,
    '-days',
    '2',
    '-extfile',
    `${name}.cnf`,
  );
}

/**
 * A CA named `caName` and a server certificate (CN `serverCn`, `subjectAltName` = `sans`, e.g.
 * `IP:127.0.0.1,DNS:localhost`) in `dir`.
 */
export async function makeTestPki(
  dir: string,
  o: { caName: string; serverCn: string; sans: string },
): Promise<TestPki> {
  const ca = ['-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', `/CN=${o.caName}`];
  const caExt = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  await openssl(dir, 'req', '-x509', ...EC_KEY, ...ca, ...caExt);
  await openssl(dir, 'req', ...EC_KEY, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${o.serverCn}`);
  await sign(dir, 'server', `subjectAltName=${o.sans}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
  const caFile = join(dir, 'ca.pem');
  return {
    dir,
    caFile,
    caPem: await readFile(caFile, 'utf8'),
    serverCert: join(dir, 'server.pem'),
    serverKey: join(dir, 'server.key'),
  };
}

/** A client certificate `client.pem` / `client.key` (CN `cn`) issued by the CA of `pki`. */
export async function issueClientCert(pki: TestPki, cn: string): Promise<{ cert: string; key: string }> {
  await openssl(pki.dir, 'req', ...EC_KEY, '-keyout', 'client.key', '-out', 'client.csr', '-subj', `/CN=${cn}`);
  await sign(pki.dir, 'client', 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n');
  return { cert: join(pki.dir, 'client.pem'), key: join(pki.dir, 'client.key') };
}

/** A TCP port free on 127.0.0.1 at the time of the call. */
export async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => res(p));
    });
  });
}
