/**
 * The server-CA rotation part of the daemon's certificate writer (openshift/machine-config-operator
 * pkg/daemon/certificate_writer.go, `syncControllerConfigHandler`, `cmToData`): when the operator marks ControllerConfig
 * `machine-config-controller` with `machineconfiguration.openshift.io/service-ca-rotate: "true"` (its kubeconfig-data
 * ConfigMap changed) and the node has not observed it yet, the CA bundle of ConfigMap
 * `openshift-machine-config-operator/kubeconfig-data` (`ca-bundle.crt`) replaces the `certificate-authority-data` of
 * `/etc/kubernetes/kubeconfig` when it adds certificates; when one of the added certificates is not one of the
 * kube-apiserver's short-lived localhost / lb / recovery signers, the kubelet is stopped, the CA copied into
 * `/var/lib/kubelet/kubeconfig`, systemd reloaded and the kubelet started again.
 */
import { X509Certificate } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { ConfigMap } from '@keelson/api';
import type { Logger } from '@keelson/kube';
import type { Host } from './host.js';
import { HostCommandError } from './host.js';

/** upstream ctrlcommon.ServiceCARotateAnnotation (on the ControllerConfig). */
export const SERVICE_CA_ROTATE_ANNOTATION = 'machineconfiguration.openshift.io/service-ca-rotate';
/** upstream constants.ControllerConfigSyncServerCA (on the Node). */
export const SERVER_CA_SYNC_ANNOTATION = 'machineconfiguration.openshift.io/lastObservedServerCAAnnotation';
/** The kubelet's own kubeconfig (rewritten before a kubelet restart). */
export const KUBELET_KUBECONFIG_PATH = '/var/lib/kubelet/kubeconfig';
/** The ConfigMap the operator keeps the kubeconfig CA bundle in. */
export const KUBECONFIG_DATA = { namespace: 'openshift-machine-config-operator', name: 'kubeconfig-data' } as const;

const END = '-----END CERTIFICATE-----';
/** Signers that rotate during upgrades without needing a kubelet restart (upstream's three `strings.Contains`). */
const NO_RESTART_SIGNERS = [
  'kube-apiserver-localhost-signer',
  'openshift-kube-apiserver-operator_localhost-recovery-serving-signer',
  'kube-apiserver-lb-signer',
];

/** Go's base64.StdEncoding.DecodeString: `\r`/`\n` skipped, anything else not base64 is an error (undefined). */
function strictBase64(s: string): Buffer | undefined {
  const t = s.replace(/[\r\n]/g, '');
  return t.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(t) ? Buffer.from(t, 'base64') : undefined;
}

/** upstream cmToData: `binaryData[key]`, else `data[key]` base64-decoded when it is base64, else as is. */
export function cmToData(cm: ConfigMap, key: string): Buffer {
  const bd = cm.binaryData?.[key];
  if (bd !== undefined) return Buffer.from(bd, 'base64');
  const d = cm.data?.[key];
  if (d !== undefined) return strictBase64(d) ?? Buffer.from(d);
  throw new Error(`${key} not found in ${cm.metadata.namespace ?? ''}/${cm.metadata.name ?? ''}`);
}

/** Go's strings.SplitAfter (pieces keep the separator; the remainder, maybe "", is the last piece). */
function splitAfter(s: string, sep: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = s.indexOf(sep); i >= 0; i = s.indexOf(sep, from)) {
    out.push(s.slice(from, i + sep.length));
    from = i + sep.length;
  }
  out.push(s.slice(from));
  return out;
}

/** Go's pem.Decode + x509.ParseCertificate: `null` when no PEM block, `undefined` when it does not parse. */
function parseCert(piece: string): X509Certificate | null | undefined {
  const m = /-----BEGIN ([^\n-]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(piece);
  if (!m) return null;
  const der = strictBase64((m[2] ?? '').replace(/\s/g, ''));
  if (der === undefined) return null;
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}

const commonName = (c: X509Certificate): string =>
  c.subject
    .split('\n')
    .find((l) => l.startsWith('CN='))
    ?.slice(3) ?? '';

/** upstream's second loop over the added certificates: does this one call for a kubelet restart? */
function needsRestart(cert: X509Certificate, log: Logger): boolean {
  const cn = commonName(cert);
  log.info(`Cert not found in kubeconfig. This means we need to write to disk. Subject is: ${cn}`);
  if (NO_RESTART_SIGNERS.some((s) => cn.includes(s))) {
    log.info('Skipping kubelet restart');
    return false;
  }
  log.info('Need to restart kubelet');
  return true;
}

/** A parsed kubeconfig with one cluster's `certificate-authority-data`. */
interface KubeconfigDoc {
  clusters?: Array<{ cluster?: Record<string, unknown> }> | null;
  [k: string]: unknown;
}

function parseKubeconfig(text: string, path: string): KubeconfigDoc {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new Error(`could not unmarshal kubeconfig into struct. Data: ${text}, Error: ${(e as Error).message}`, {
      cause: e,
    });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new Error(`could not unmarshal kubeconfig into struct: ${path} is not a YAML mapping`);
  return doc as KubeconfigDoc;
}

function firstCluster(doc: KubeconfigDoc, path: string): Record<string, unknown> {
  const c = doc.clusters?.[0];
  if (!c) throw new Error(`clusters cannot be nil (${path})`);
  c.cluster ??= {};
  return c.cluster;
}

/** The CA bytes of a kubeconfig's first cluster (base64 in the file, as Go marshals []byte). */
function caOf(doc: KubeconfigDoc, path: string): Buffer {
  const v = firstCluster(doc, path)['certificate-authority-data'];
  return typeof v === 'string' ? (strictBase64(v) ?? Buffer.alloc(0)) : Buffer.alloc(0);
}

/** Go's yaml.Marshal of the config (ghodss: through JSON, so keys come out sorted). */
function withCa(doc: KubeconfigDoc, path: string, ca: string): Buffer {
  firstCluster(doc, path)['certificate-authority-data'] = Buffer.from(ca).toString('base64');
  return Buffer.from(stringifyYaml(doc, { sortMapEntries: true, lineWidth: 0 }));
}

/** What the rotation does to `/etc/kubernetes/kubeconfig`. */
export interface KubeconfigCaPlan {
  /** New bytes of the kubeconfig (undefined: left alone). */
  readonly kubeconfig: Buffer | undefined;
  /** The CA now in it (every well-formed certificate of the bundle). */
  readonly ca: string;
  /** Restart the kubelet with that CA. */
  readonly restartKubelet: boolean;
}

/**
 * upstream's comparison of the ConfigMap bundle with the kubeconfig's CA: a certificate of the bundle missing from
 * the kubeconfig makes the kubeconfig take the whole (well-formed part of the) bundle; the kubelet restarts unless
 * every added certificate is one of the short-lived kube-apiserver signers.
 */
export function planKubeconfigCa(kubeconfig: string, bundle: Buffer, path: string, log: Logger): KubeconfigCaPlan {
  const doc = parseKubeconfig(kubeconfig, path);
  const onDisk = caOf(doc, path).toString();
  const data = bundle.toString();
  const diff = onDisk.trim() !== data.trim();
  const disk = splitAfter(onDisk.trim(), END);
  const full: string[] = [];
  const added: string[] = [];
  for (const piece of splitAfter(data.trim(), END)) {
    if (!disk.includes(piece)) added.push(piece);
    const cert = parseCert(piece);
    if (cert === null) {
      log.info('Unable to decode cert into a pem block. Cert is either empty or invalid.');
      break;
    }
    if (cert === undefined) {
      log.info(`Malformed Cert, not syncing: ${piece}`);
      continue;
    }
    full.push(piece);
  }
  let restart = false;
  for (const piece of added) {
    const cert = parseCert(piece);
    if (cert === null) break; // upstream: no PEM block ends the loop, a malformed one is skipped
    if (cert !== undefined && needsRestart(cert, log)) restart = true;
  }
  if (!diff || added.length === 0) return { kubeconfig: undefined, ca: onDisk, restartKubelet: false };
  const ca = full.join('');
  log.info('Writing new Data to /etc/kubernetes/kubeconfig');
  return { kubeconfig: withCa(doc, path, ca), ca, restartKubelet: restart && ca.length > 0 };
}

async function mustSystemctl(host: Host, args: readonly string[]): Promise<void> {
  const r = await host.systemctl(args);
  if (r.exitCode !== 0) throw new HostCommandError(['systemctl', ...args], r);
}

/**
 * upstream's kubelet restart after a server-CA rotation: `systemctl stop kubelet`, the kubelet's kubeconfig given
 * the new CA (everything else kept), `systemctl daemon-reload`, `systemctl start kubelet`.
 */
export async function restartKubeletWithCa(
  host: Host,
  resolve: (p: string) => string,
  ca: string,
  write: (path: string, data: Buffer) => Promise<void>,
  log: Logger,
): Promise<void> {
  log.info('restarting kubelet due to server-ca rotation');
  await mustSystemctl(host, ['stop', 'kubelet']);
  let text: string;
  try {
    text = await fs.readFile(resolve(KUBELET_KUBECONFIG_PATH), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      log.warn(`Failed to get kubeconfig file: ${(e as Error).message}`);
      throw e;
    }
    throw new Error(`unexpected error reading kubeconfig file, ${(e as Error).message}`, { cause: e });
  }
  const doc = parseKubeconfig(text, KUBELET_KUBECONFIG_PATH);
  await write(KUBELET_KUBECONFIG_PATH, withCa(doc, KUBELET_KUBECONFIG_PATH, ca));
  await mustSystemctl(host, ['daemon-reload']);
  await mustSystemctl(host, ['start', 'kubelet']);
}
