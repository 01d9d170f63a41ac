/**
 * The client CA of the metrics endpoint, watched from ConfigMap `kube-system/extension-apiserver-authentication` key
 * `client-ca-file` (openshift/cluster-version-operator `pkg/cvo/metrics.go` `RunMetrics`:
 * `dynamiccertificates.NewDynamicCAFromConfigMapController`), so a rotated CA applies without a restart.
 */
import { ConfigMaps, Informer, type ConfigMap, type KubeClient, type Logger } from '@keelson/kube';

export const CLIENT_CA_CONFIG_MAP = { namespace: 'kube-system', name: 'extension-apiserver-authentication' } as const;
export const CLIENT_CA_KEY = 'client-ca-file';

/** Watches the client CA bundle; `current()` is undefined while there is none. */
export class ClientCAWatcher {
  private readonly informer: Informer<ConfigMap>;
  private readonly listeners = new Set<(ca: string | undefined) => void>();
  private last: string | undefined;

  constructor(client: KubeClient, log: Logger) {
    this.informer = new Informer(client, ConfigMaps, {
      namespace: CLIENT_CA_CONFIG_MAP.namespace,
      fieldSelector: `metadata.name=${CLIENT_CA_CONFIG_MAP.name}`,
      logger: log,
    });
    const changed = (): void => {
      const ca = this.current();
      if (ca === this.last) return;
      this.last = ca;
      for (const l of this.listeners) l(ca);
    };
    this.informer.addHandlers({ add: changed, update: changed, delete: changed });
  }

  /** The PEM bundle, or undefined when the ConfigMap or its key is missing or empty. */
  current(): string | undefined {
    const cm = this.informer.store.getByKey(`${CLIENT_CA_CONFIG_MAP.namespace}/${CLIENT_CA_CONFIG_MAP.name}`);
    const ca = cm?.data?.[CLIENT_CA_KEY];
    return ca !== undefined && ca.trim() !== '' ? ca : undefined;
  }

  /** Calls `f` whenever the bundle changes. */
  onChange(f: (ca: string | undefined) => void): void {
    this.listeners.add(f);
  }

  /** Starts the watch and waits for the first list (upstream `RunOnce`). */
  async start(signal?: AbortSignal): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync(signal);
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }
}
