/** Server-side `Table` rendering (meta.k8s.io/v1), used by `kubectl get`. */
import { getPath } from './selectors.js';
import type { KubeObject, ResourceType } from './types.js';
import { isObject, text } from './util.js';

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell(o: KubeObject, now: number): unknown;
}

/** kubectl's human duration (`duration.HumanDuration`). */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const years = Math.floor(hours / 24 / 365);
  if (years < 8) {
    const d = Math.floor(hours / 24) % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

function age(o: KubeObject, now: number): string {
  const ts = o.metadata?.creationTimestamp;
  if (!ts) return '<unknown>';
  return humanDuration(now - Date.parse(ts));
}

const NAME: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
  cell: (o) => o.metadata?.name ?? '',
};
const AGE: Column = {
  name: 'Age',
  type: 'string',
  format: '',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: age,
};

function col(name: string, type: string, cell: Column['cell'], priority = 0): Column {
  return { name, type, format: '', description: name, priority, cell };
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

function podReady(o: KubeObject): string {
  const spec = isObject(o['spec']) ? o['spec'] : {};
  const status = isObject(o['status']) ? o['status'] : {};
  const total = Array.isArray(spec['containers']) ? spec['containers'].length : 0;
  const cs = Array.isArray(status['containerStatuses']) ? status['containerStatuses'] : [];
  const ready = cs.filter((c) => isObject(c) && c['ready'] === true).length;
  return `${ready}/${total}`;
}

function podRestarts(o: KubeObject): number {
  const status = isObject(o['status']) ? o['status'] : {};
  const cs = Array.isArray(status['containerStatuses']) ? status['containerStatuses'] : [];
  return cs.reduce<number>((n, c) => n + (isObject(c) ? num(c['restartCount']) : 0), 0);
}

function nodeStatus(o: KubeObject): string {
  const conds = getPath(o, 'status.conditions');
  let s = 'Unknown';
  if (Array.isArray(conds)) {
    const r: unknown = conds.find((c) => isObject(c) && c['type'] === 'Ready');
    if (isObject(r)) s = r['status'] === 'True' ? 'Ready' : 'NotReady';
  }
  if (getPath(o, 'spec.unschedulable') === true) s += ',SchedulingDisabled';
  return s;
}

function nodeRoles(o: KubeObject): string {
  const roles = Object.keys(o.metadata?.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length))
    .filter((r) => r !== '')
    .sort();
  return roles.length ? roles.join(',') : '<none>';
}

function configMapDataCount(o: KubeObject): number {
  return (
    Object.keys(isObject(o['data']) ? o['data'] : {}).length +
    Object.keys(isObject(o['binaryData']) ? o['binaryData'] : {}).length
  );
}

function servicePorts(o: KubeObject): string {
  const ports = getPath(o, 'spec.ports');
  return Array.isArray(ports) && ports.length
    ? ports.map((p) => (isObject(p) ? `${String(p['port'])}/${text(p['protocol'] ?? 'TCP')}` : '')).join(',')
    : '<none>';
}

function eventLastSeen(o: KubeObject, now: number): string {
  const ts =
    getPath(o, 'lastTimestamp') ??
    getPath(o, 'deprecatedLastTimestamp') ??
    getPath(o, 'eventTime') ??
    o.metadata?.creationTimestamp;
  return typeof ts === 'string' ? humanDuration(now - Date.parse(ts)) : '<unknown>';
}

function eventObject(o: KubeObject): string {
  const ref = getPath(o, 'involvedObject') ?? getPath(o, 'regarding');
  return isObject(ref) ? `${text(ref['kind'] ?? '').toLowerCase()}/${text(ref['name'] ?? '')}` : '';
}

/** The columns `kubectl get` prints for a built-in resource (apiserver `printers/internalversion`). */
function builtinColumns(t: ResourceType): Column[] {
  const key = `${t.group}/${t.plural}`;
  switch (key) {
    case '/namespaces':
      return [NAME, col('Status', 'string', (o) => getPath(o, 'status.phase') ?? ''), AGE];
    case '/nodes':
      return [
        NAME,
        col('Status', 'string', nodeStatus),
        col('Roles', 'string', nodeRoles),
        AGE,
        col('Version', 'string', (o) => getPath(o, 'status.nodeInfo.kubeletVersion') ?? ''),
      ];
    case '/pods':
      return [
        NAME,
        col('Ready', 'string', podReady),
        col('Status', 'string', (o) =>
          o.metadata?.deletionTimestamp ? 'Terminating' : (getPath(o, 'status.phase') ?? ''),
        ),
        col('Restarts', 'string', (o) => String(podRestarts(o))),
        AGE,
        col('Node', 'string', (o) => getPath(o, 'spec.nodeName') ?? '<none>', 1),
      ];
    case '/configmaps':
      return [NAME, col('Data', 'integer', configMapDataCount), AGE];
    case '/secrets':
      return [
        NAME,
        col('Type', 'string', (o) => o['type'] ?? 'Opaque'),
        col('Data', 'integer', (o) => Object.keys(isObject(o['data']) ? o['data'] : {}).length),
        AGE,
      ];
    case 'apps/deployments':
      return [
        NAME,
        col('Ready', 'string', (o) => `${num(getPath(o, 'status.readyReplicas'))}/${num(getPath(o, 'spec.replicas'))}`),
        col('Up-to-date', 'integer', (o) => num(getPath(o, 'status.updatedReplicas'))),
        col('Available', 'integer', (o) => num(getPath(o, 'status.availableReplicas'))),
        AGE,
      ];
    case 'apps/replicasets':
      return [
        NAME,
        col('Desired', 'integer', (o) => num(getPath(o, 'spec.replicas'))),
        col('Current', 'integer', (o) => num(getPath(o, 'status.replicas'))),
        col('Ready', 'integer', (o) => num(getPath(o, 'status.readyReplicas'))),
        AGE,
      ];
    case '/services':
      return [
        NAME,
        col('Type', 'string', (o) => getPath(o, 'spec.type') ?? 'ClusterIP'),
        col('Cluster-IP', 'string', (o) => getPath(o, 'spec.clusterIP') ?? '<none>'),
        col('External-IP', 'string', () => '<none>'),
        col('Port(s)', 'string', servicePorts),
        AGE,
      ];
    case '/events':
    case 'events.k8s.io/events':
      return [
        col('Last Seen', 'string', eventLastSeen),
        col('Type', 'string', (o) => getPath(o, 'type') ?? ''),
        col('Reason', 'string', (o) => getPath(o, 'reason') ?? ''),
        col('Object', 'string', eventObject),
        col('Message', 'string', (o) => text(getPath(o, 'message') ?? getPath(o, 'note') ?? '').trim()),
      ];
    case 'apps/daemonsets':
      return [
        NAME,
        col('Desired', 'integer', (o) => num(getPath(o, 'status.desiredNumberScheduled'))),
        col('Current', 'integer', (o) => num(getPath(o, 'status.currentNumberScheduled'))),
        col('Ready', 'integer', (o) => num(getPath(o, 'status.numberReady'))),
        col('Up-to-date', 'integer', (o) => num(getPath(o, 'status.updatedNumberScheduled'))),
        col('Available', 'integer', (o) => num(getPath(o, 'status.numberAvailable'))),
        AGE,
      ];
    case 'policy/poddisruptionbudgets':
      return [
        NAME,
        col('Min Available', 'string', (o) => text(getPath(o, 'spec.minAvailable') ?? 'N/A')),
        col('Max Unavailable', 'string', (o) => text(getPath(o, 'spec.maxUnavailable') ?? 'N/A')),
        col('Allowed Disruptions', 'integer', (o) => num(getPath(o, 'status.disruptionsAllowed'))),
        AGE,
      ];
    case 'coordination.k8s.io/leases':
      return [NAME, col('Holder', 'string', (o) => getPath(o, 'spec.holderIdentity') ?? ''), AGE];
    case 'apiextensions.k8s.io/customresourcedefinitions':
      return [NAME, col('Created At', 'date', (o) => o.metadata?.creationTimestamp ?? '')];
    default:
      return [NAME, AGE];
  }
}

/** Evaluates the simple JSONPath subset used by printer columns: `.a.b`, `.a[0].b`, `.a[?(@.type=="Ready")].status`. */
export function evalJsonPath(o: unknown, expr: string): unknown {
  let p = expr.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  const tokens = p.match(/\.[^.[]+|\[[^\]]*\]/g) ?? [];
  let cur: unknown = o;
  for (const tok of tokens) {
    if (cur === undefined || cur === null) return undefined;
    if (tok.startsWith('.')) {
      cur = isObject(cur) ? cur[tok.slice(1)] : undefined;
      continue;
    }
    const inner = tok.slice(1, -1);
    const filt = /^\?\(@\.([\w.]+)\s*==\s*["']([^"']*)["']\)$/.exec(inner);
    if (filt && Array.isArray(cur)) {
      cur = cur.find((x) => String(getPath(x, filt[1] ?? '')) === filt[2]);
      continue;
    }
    if (/^\d+$/.test(inner) && Array.isArray(cur)) {
      cur = cur[Number(inner)];
      continue;
    }
    if (inner === '*' && Array.isArray(cur)) continue;
    return undefined;
  }
  return cur;
}

function crdColumns(t: ResourceType): Column[] {
  const pcs = t.crd?.printerColumns ?? [];
  if (pcs.length === 0) return [NAME, AGE];
  return [
    NAME,
    ...pcs.map((pc) => ({
      name: pc.name,
      type: pc.type,
      format: pc.format ?? '',
      description: pc.description ?? '',
      priority: pc.priority ?? 0,
      cell: (o: KubeObject, now: number): unknown => {
        const v = evalJsonPath(o, pc.jsonPath);
        if (v === undefined || v === null) return null;
        if (pc.type === 'date' && typeof v === 'string') return humanDuration(now - Date.parse(v));
        if (typeof v === 'object') return JSON.stringify(v);
        return v;
      },
    })),
  ];
}

/** Renders objects as a meta.k8s.io/v1 Table. */
export function toTable(
  t: ResourceType,
  objects: KubeObject[],
  listMeta: Record<string, unknown>,
  includeObject: string,
  withColumns = true,
): KubeObject {
  const cols = t.crd ? crdColumns(t) : builtinColumns(t);
  const now = Date.now();
  const table: KubeObject = {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: withColumns
      ? cols.map((c) => ({
          name: c.name,
          type: c.type,
          format: c.format,
          description: c.description,
          priority: c.priority,
        }))
      : [],
    rows: objects.map((o) => ({
      cells: cols.map((c) => c.cell(o, now)),
      object:
        includeObject === 'Object'
          ? o
          : includeObject === 'None'
            ? null
            : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata ?? {} },
    })),
  };
  return table;
}

/** Whether an Accept header asks for a Table. */
export function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  const first = accept.split(',')[0] ?? '';
  return /as=Table/.test(first) && /g=meta\.k8s\.io/.test(first);
}
