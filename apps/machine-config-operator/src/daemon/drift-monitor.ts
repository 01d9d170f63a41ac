/**
 * Config drift monitor (openshift/machine-config-operator pkg/daemon/config_drift_monitor.go): while the node is
 * Done, watches (inotify via `fs.watch`, no polling) the parent directories of every file, unit and dropin of the
 * current config; an event on one of those paths reruns the files-and-units validation against the host root.
 * A mismatch is reported once per distinct message with the validator's text without the "unexpected on-disk
 * state validating against …" prefix (upstream's `onConfigDrift` reason, e.g. `content mismatch for file
 * "/etc/foo"`); a later event that finds the host matching again reports the recovery. Stopped during updates.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { MachineConfig } from '@keelson/api';
import type { Logger } from '@keelson/kube';
import { ignitionOf } from './config.js';
import type { Host } from './host.js';
import { OnDiskValidationError, validateFilesAndUnits } from './on-disk-validation.js';
import type { HostRoot } from './root.js';

/** What the monitor tells the daemon. */
export interface DriftHandlers {
  /** The host no longer matches the config. */
  onDrift(err: OnDiskValidationError): void;
  /** The host matches the config again after a drift. */
  onRecovered(): void;
}

/** Quiet time after the last event before validating (editors write a file in several steps). */
export const DRIFT_DEBOUNCE_MS = 100;

/** Host paths a config owns: files, units and dropins (`/etc/systemd/system/<unit>[.d/<dropin>]`). */
export function watchedPaths(mc: MachineConfig): string[] {
  const ign = ignitionOf(mc);
  const out = (ign.storage?.files ?? []).map((f) => f.path ?? '').filter((p) => p !== '');
  for (const u of ign.systemd?.units ?? []) {
    if (u.contents != null || u.mask === true) out.push(`/etc/systemd/system/${u.name}`);
    for (const d of u.dropins ?? []) out.push(`/etc/systemd/system/${u.name}.d/${d.name}`);
  }
  return [...new Set(out)];
}

/** One running monitor for one config. */
export class ConfigDriftMonitor {
  readonly config: string;
  readonly #watchers: FSWatcher[] = [];
  readonly #root: HostRoot;
  readonly #host: Host;
  readonly #mc: MachineConfig;
  readonly #handlers: DriftHandlers;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | undefined;
  #drifted = '';
  #stopped = false;

  constructor(o: { root: HostRoot; host: Host; mc: MachineConfig; handlers: DriftHandlers; logger: Logger }) {
    this.#root = o.root;
    this.#host = o.host;
    this.#mc = o.mc;
    this.#handlers = o.handlers;
    this.#logger = o.logger;
    this.config = o.mc.metadata.name ?? '';
  }

  /** Starts watching the parent directory of every path of the config that exists, then checks once. */
  start(): void {
    const byDir = new Map<string, Set<string>>();
    for (const p of watchedPaths(this.#mc)) {
      const set = byDir.get(dirname(p)) ?? new Set<string>();
      set.add(basename(p));
      byDir.set(dirname(p), set);
    }
    for (const [dir, names] of byDir) {
      try {
        const w = watch(this.#root.resolve(dir), { persistent: false }, (_event, name) => {
          if (name === null || names.has(name)) this.#schedule();
        });
        w.on('error', (e) => {
          this.#logger.warn('config drift monitor: watch failed', { dir, error: e.message });
        });
        this.#watchers.push(w);
      } catch (e) {
        // a directory that does not exist has no file of the config in it yet; validation at sync time covers it
        this.#logger.debug('config drift monitor: not watching', { dir, error: (e as Error).message });
      }
    }
    this.#logger.info('config drift monitor started', { config: this.config, dirs: this.#watchers.length });
    // one check once the watches are in place: an edit made between the node going Done and the watches starting
    // sends no event, and would otherwise go unseen until the next update
    this.#schedule();
  }

  #schedule(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#check(), DRIFT_DEBOUNCE_MS);
  }

  async #check(): Promise<void> {
    if (this.#stopped) return;
    try {
      await validateFilesAndUnits(this.#root, this.#host, ignitionOf(this.#mc));
      if (this.#drifted !== '' && !this.#stopped) {
        this.#drifted = '';
        this.#handlers.onRecovered();
      }
    } catch (e) {
      if (!(e instanceof OnDiskValidationError)) {
        this.#logger.warn('config drift monitor: validation failed', { error: (e as Error).message });
        return;
      }
      if (this.#stopped || e.message === this.#drifted) return;
      this.#drifted = e.message;
      this.#handlers.onDrift(e);
    }
  }

  /** Stops watching. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    for (const w of this.#watchers.splice(0)) w.close();
  }
}
