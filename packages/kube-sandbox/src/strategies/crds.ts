/**
 * CustomResourceDefinitions: status (NamesAccepted, Established), immutable group and scope, the served types of an
 * accepted CRD, and the `customresourcecleanup` finalizer that deletes every custom object before the CRD goes.
 */
import type { Cluster } from '../cluster.js';
import { CRD_TERMINATING_VERBS, celErrors, crdStatus, crdTypes, prepareCustomObject, validateCrd } from '../crd.js';
import { ApiError } from '../errors.js';
import type { JsonObject, KubeObject } from '../types.js';
import { clone, isObject, must } from '../util.js';

export function installCrdStrategy(cluster: Cluster): void {
  cluster.setStrategy('apiextensions.k8s.io', 'customresourcedefinitions', {
    prepareCreate(obj) {
      obj['status'] = crdStatus(obj, namesConflict(cluster, obj), undefined);
    },
    prepareUpdate(obj, old) {
      obj['status'] = crdStatus(obj, namesConflict(cluster, obj), old);
    },
    validate(obj, old) {
      const errs = validateCrd(obj);
      if (old && isObject(old['spec']) && isObject(obj['spec'])) {
        if (old['spec']['group'] !== obj['spec']['group'])
          errs.push({
            field: 'spec.group',
            type: 'FieldValueInvalid',
            value: obj['spec']['group'],
            detail: 'field is immutable',
          });
        if (old['spec']['scope'] !== obj['spec']['scope'])
          errs.push({
            field: 'spec.scope',
            type: 'FieldValueInvalid',
            value: obj['spec']['scope'],
            detail: 'field is immutable',
          });
      }
      return errs;
    },
    afterWrite(type, obj) {
      if (type === 'DELETED') {
        const spec = obj['spec'] as { group: string; names: { plural: string } };
        cluster.removeTypes(spec.group, spec.names.plural, [], true);
        return;
      }
      if (obj.metadata?.deletionTimestamp) {
        // customresourcecleanup: delete every custom object, then drop the finalizer
        cleanupCrd(cluster, obj);
        return;
      }
      if (!namesConflict(cluster, obj)) registerCrd(cluster, obj);
    },
  });
  const origCreate = cluster.create.bind(cluster);
  cluster.create = (t, ns, body, o) => {
    if (t.group === 'apiextensions.k8s.io' && t.plural === 'customresourcedefinitions' && isObject(body)) {
      const md = (isObject(body['metadata']) ? body['metadata'] : {}) as JsonObject;
      const fins = Array.isArray(md['finalizers']) ? (md['finalizers'] as string[]) : [];
      if (!fins.includes('customresourcecleanup.apiextensions.k8s.io'))
        body = { ...body, metadata: { ...md, finalizers: [...fins, 'customresourcecleanup.apiextensions.k8s.io'] } };
    }
    return origCreate(t, ns, body, o);
  };
}

/** Registers the served types of a CRD and the custom-object strategy. */
export function registerCrd(cluster: Cluster, crd: KubeObject): void {
  const types = crdTypes(crd);
  const first = types[0];
  if (!first) return;
  cluster.removeTypes(
    first.group,
    first.plural,
    types.map((t) => t.version),
  );
  for (const t of types) cluster.addType(t);
  cluster.setStrategy(first.group, first.plural, {
    validate(obj, old) {
      const t = cluster.typeForKind(String(obj.apiVersion), String(obj.kind)) ?? first;
      const storageT = types.find((x) => x.crd?.storage) ?? t;
      const { errors } = prepareCustomObject(storageT, obj);
      return [...errors, ...celErrors(storageT, obj, old, errors)];
    },
  });
}

function cleanupCrd(cluster: Cluster, crd: KubeObject): void {
  const spec = crd['spec'] as { group: string; names: { plural: string } };
  // a terminating CRD serves only delete/deletecollection/get/list/watch (create, update, patch answer 405)
  for (const x of cluster.allTypes())
    if (x.group === spec.group && x.plural === spec.names.plural) x.verbs = [...CRD_TERMINATING_VERBS];
  const t = cluster.allTypes().find((x) => x.group === spec.group && x.plural === spec.names.plural);
  if (t) {
    for (const o of cluster.peekAll(t)) {
      try {
        cluster.delete(t, o.metadata?.namespace, o.metadata?.name ?? '');
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
      }
    }
    if (cluster.peekAll(t).length > 0) return;
  }
  const crdType = must(
    cluster.findType('apiextensions.k8s.io', 'v1', 'customresourcedefinitions'),
    'built-in type apiextensions.k8s.io/v1/customresourcedefinitions',
  );
  const cur = cluster.peek(crdType, undefined, crd.metadata?.name ?? '');
  if (!cur) return;
  const next = clone(cur);
  (next.metadata ??= {}).finalizers = (next.metadata?.finalizers ?? []).filter(
    (f) => f !== 'customresourcecleanup.apiextensions.k8s.io',
  );
  setImmediate(() => {
    const again = cluster.peek(crdType, undefined, crd.metadata?.name ?? '');
    if (again)
      cluster.applyUpdate(
        crdType,
        again,
        { ...clone(again), metadata: next.metadata ?? {} },
        { fieldManager: 'apiextensions' },
      );
  });
}

function namesConflict(cluster: Cluster, crd: KubeObject): string | null {
  const spec = crd['spec'] as { group?: string; names?: { plural?: string; kind?: string } } | undefined;
  if (!spec?.group || !spec.names?.plural) return null;
  for (const t of cluster.allTypes()) {
    if (t.group !== spec.group) continue;
    if (t.plural === spec.names.plural && t.crd && t.crd.crdName !== crd.metadata?.name)
      return `"${spec.names.plural}" is already in use`;
    if (t.kind === spec.names.kind && t.plural !== spec.names.plural) return `"${spec.names.kind}" is already in use`;
    if (t.plural === spec.names.plural && !t.crd) return `"${spec.names.plural}" is already in use`;
  }
  return null;
}
