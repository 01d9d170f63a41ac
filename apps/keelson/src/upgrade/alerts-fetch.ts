/**
 * Fetches the cluster's alerts as `oc adm upgrade recommend` does (openshift/oc pkg/cli/admin/inspectalerts
 * `ValidateRESTConfig`, `GetAlerts`, `getWithRoundTripper`, `checkedGet`): the `openshift-monitoring/thanos-querier`
 * Route, then `GET https://<ingress host>/api/v1/alerts` for each of its ingress hosts with the kubeconfig's
 * credentials and CA (the API server's transport), the first 200 winning. Errors carry oc's texts.
 */
import { request, type RequestOptions } from 'node:https';
import { defineResource, KubeApiError, type KubeClient, type KubeObject } from '@keelson/kube';

interface Route extends KubeObject {
  status?: { ingress?: { host?: string }[] };
}

const Routes = defineResource<Route>({
  group: 'route.openshift.io',
  version: 'v1',
  kind: 'Route',
  plural: 'routes',
  namespaced: true,
});

/** Largest alerts document read (a hostile or broken endpoint cannot exhaust memory). */
export const MAX_ALERTS_BYTES = 64 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

/** Why the alerts could not be read (oc's message). */
export class AlertsFetchError extends Error {}

function get(url: URL, base: RequestOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ...base, method: 'GET', timeout: TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_ALERTS_BYTES) {
          req.destroy(new Error(`response larger than ${MAX_ALERTS_BYTES} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`GET status code=${res.statusCode ?? 0}`));
        else resolve(Buffer.concat(chunks).toString('utf8'));
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no response within ${TIMEOUT_MS / 1000}s`)));
    req.on('error', reject);
    req.end();
  });
}

function apiMessage(e: unknown): string {
  if (e instanceof KubeApiError) return e.body?.message ?? e.message;
  return (e as Error).message;
}

/** The alerts JSON of the cluster; throws {@link AlertsFetchError} with oc's texts. */
export async function fetchAlerts(client: KubeClient): Promise<string> {
  const kc = client.kubeConfig;
  if ((kc.getCurrentUser()?.token ?? '') === '')
    throw new AlertsFetchError('no token is currently in use for this session');
  const fail = (m: string): AlertsFetchError => new AlertsFetchError(`failed to get alerts from Thanos: ${m}`);
  let route: Route;
  try {
    route = await client.resource(Routes).get('thanos-querier', 'openshift-monitoring');
  } catch (e) {
    throw fail(apiMessage(e));
  }
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const errs: string[] = [];
  for (const ingress of route.status?.ingress ?? []) {
    const host = ingress.host ?? '';
    try {
      return await get(new URL(`https://${host}/api/v1/alerts`), opts);
    } catch (e) {
      errs.push(`${host}->${(e as Error).message}`);
    }
  }
  const where = 'the openshift-monitoring/thanos-querier Route';
  // k8s.io/apimachinery's NewAggregate: one error as is, several as "[a, b]", none is a nil error (Go's %s of nil)
  const agg = errs.length === 1 ? (errs[0] ?? '') : errs.length === 0 ? '%!s(<nil>)' : `[${errs.join(', ')}]`;
  throw fail(
    errs.length === 1
      ? `unable to get /api/v1/alerts from URI in ${where}: ${agg}`
      : `unable to get /api/v1/alerts from any of ${errs.length} URIs in ${where}: ${agg}`,
  );
}
