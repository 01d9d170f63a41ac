/**
 * The daemon's Prometheus metrics, named and labelled as upstream's (openshift/machine-config-operator
 * pkg/daemon/metrics.go, `RegisterMCDMetrics`): `mcd_host_os_and_version{os,version}`, `mcd_pivot_errors_total`,
 * `mcd_state{state,reason}`, `mcd_kubelet_state`, `mcd_reboots_failed_total`, `mcd_update_state{config,err}`,
 * `mcd_config_drift` (timestamp of the last drift found). Served with `/healthz` on 127.0.0.1:8797 (upstream's
 * metrics listener port; upstream exposes it to Prometheus through a kube-rbac-proxy sidecar).
 */
import { readFile } from 'node:fs/promises';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { HostRoot } from './root.js';

/** Upstream's metrics listener address. */
export const DEFAULT_METRICS_ADDRESS = '127.0.0.1:8797';

/** The daemon's metrics on one registry. */
export class DaemonMetrics {
  readonly hostOS: Gauge<'os' | 'version'>;
  readonly pivotErrors: Gauge;
  readonly state: Gauge<'state' | 'reason'>;
  readonly kubeletState: Gauge;
  readonly rebootsFailed: Counter;
  readonly updateState: Gauge<'config' | 'err'>;
  readonly configDrift: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.hostOS = new Gauge({
      name: 'mcd_host_os_and_version',
      help: 'os that MCD is running on and version if RHCOS',
      labelNames: ['os', 'version'],
      registers,
    });
    this.pivotErrors = new Gauge({
      name: 'mcd_pivot_errors_total',
      help: 'Total number of errors encountered during pivot.',
      registers,
    });
    this.state = new Gauge({
      name: 'mcd_state',
      help: 'state of daemon on specified node',
      labelNames: ['state', 'reason'],
      registers,
    });
    this.kubeletState = new Gauge({ name: 'mcd_kubelet_state', help: 'state of kubelet health monitor', registers });
    this.rebootsFailed = new Counter({
      name: 'mcd_reboots_failed_total',
      help: 'Total number of reboots that failed.',
      registers,
    });
    this.updateState = new Gauge({
      name: 'mcd_update_state',
      help: 'completed update config or error',
      labelNames: ['config', 'err'],
      registers,
    });
    this.configDrift = new Gauge({ name: 'mcd_config_drift', help: 'timestamp for config drift', registers });
    // upstream's initial values
    this.kubeletState.set(0);
    this.updateState.labels('', '').set(0);
  }

  /** `mcd_state`: one series, the current state and reason (upstream resets the vector before setting it). */
  setState(state: string, reason: string): void {
    this.state.reset();
    this.state.labels(state, reason).set(1);
  }

  /** `mcd_update_state`: the config reached (err "") or the error of the last attempt. */
  setUpdateState(config: string, err: string): void {
    this.updateState.reset();
    this.updateState.labels(config, err).set(1);
  }

  /** `mcd_host_os_and_version` from the host's os-release (ID upper-cased, as upstream's label is "RHCOS"). */
  async readHostOS(root: HostRoot): Promise<void> {
    const text = await readFile(root.resolve('/etc/os-release'), 'utf8').catch(() =>
      readFile(root.resolve('/usr/lib/os-release'), 'utf8').catch(() => ''),
    );
    const field = (k: string): string =>
      /^(?:"?)(.*?)(?:"?)$/.exec(new RegExp(`^${k}=(.*)$`, 'm').exec(text)?.[1] ?? '')?.[1] ?? '';
    const id = field('ID');
    const os = id === 'rhcos' ? 'RHCOS' : id === 'scos' ? 'SCOS' : id === 'fedora' ? 'FCOS' : id.toUpperCase();
    this.hostOS.reset();
    this.hostOS.labels(os, field('RHEL_VERSION') || field('VERSION_ID') || field('VERSION')).set(1);
  }
}
