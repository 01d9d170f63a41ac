/**
 * Which task-graph node an API request belongs to: {@link runPayload} runs each node's work (its ClusterOperator
 * precreation and its tasks) inside this scope, so code observing the process's HTTP requests (the sync benchmark, via
 * `node:diagnostics_channel` `http.client.request.start`) can attribute each request to its node and compute the
 * graph's API bound from the requests the run really made.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The node's key: the manifest index (1-based, payload order) of the node's first task. */
const scope = new AsyncLocalStorage<number>();

/** Runs `fn` as the work of the graph node keyed `key`. */
export function inGraphNode<T>(key: number, fn: () => Promise<T>): Promise<T> {
  return scope.run(key, fn);
}

/** The key of the graph node whose work is running, undefined outside any node (status writes, watches, leases). */
export function currentGraphNode(): number | undefined {
  return scope.getStore();
}
