/**
 * The kubelet's part for the operators' pods, as a pure decision: upstream the CVO, the machine-config-operator and the
 * machine-config-controller exit when they lose their leader-election Lease, and their container is started again.
 * The rehearsal runs them in-process, where a component that lost its Lease just goes idle; it restarts the ones
 * {@link decideRestarts} names.
 */

/** Result of {@link decideRestarts}. */
export interface RestartDecision<K extends string> {
  /** Components that held their Lease and no longer do: stop them and start them again. */
  restart: K[];
  /** Components that have held their Lease since they were (re)started, for the next call. */
  led: Set<K>;
}

/**
 * Which components to start again. A component whose process ended on its own (`exited`: true) is restarted whatever
 * it did before, as the kubelet restarts any container that exits (e.g. a CVO that dies right after winning its
 * Lease, before anyone saw it lead). Otherwise a component that held its Lease and no longer does is restarted (an
 * in-process one goes idle instead of exiting). `leading` maps each supervised component to whether it holds its Lease
 * now (`undefined`: it cannot tell); one that has not held it yet is still campaigning, as a new pod does, and is left
 * alone; `led` is what the previous call returned.
 */
export function decideRestarts<K extends string>(
  led: ReadonlySet<K>,
  leading: ReadonlyMap<K, boolean | undefined>,
  exited: ReadonlyMap<K, boolean> = new Map(),
): RestartDecision<K> {
  const next = new Set(led);
  const restart: K[] = [];
  for (const [k, now] of leading) {
    if (exited.get(k) === true) {
      next.delete(k);
      restart.push(k);
    } else if (now === undefined) continue;
    else if (now) next.add(k);
    else if (next.delete(k)) restart.push(k);
  }
  return { restart, led: next };
}
