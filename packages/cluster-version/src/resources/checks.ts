/** Post-apply health checks (upstream resourcebuilder `check*Health`); pure functions of the object the server returned. */
import { UpdateError } from '../errors.js';
import { child, type JsonObject } from './merge-core.js';

/** Returns an error when the applied object is unhealthy, `null` when fine. */
export type HealthCheckFn = (obj: JsonObject) => Error | null;

interface Cond {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

function conditions(obj: JsonObject): Cond[] {
  const c = child(obj, 'status')['conditions'];
  return Array.isArray(c) ? (c as Cond[]) : [];
}

function num(obj: JsonObject, section: string, key: string, dflt: number): number {
  const v = child(obj, section)[key];
  return typeof v === 'number' ? v : dflt;
}

function nsName(obj: JsonObject): string {
  const m = child(obj, 'metadata');
  const ns = typeof m['namespace'] === 'string' ? m['namespace'] : '';
  const name = typeof m['name'] === 'string' ? m['name'] : '';
  return ns === '' ? name : `${ns}/${name}`;
}

function deleting(obj: JsonObject): boolean {
  return child(obj, 'metadata')['deletionTimestamp'] !== undefined;
}

/** Deployment: being deleted, ReplicaFailure, Available=False with Progressing=False, ProgressDeadlineExceeded. */
export const checkDeployment: HealthCheckFn = (obj) => {
  const name = nsName(obj);
  if (deleting(obj)) return new Error(`deployment ${name} is being deleted`);
  const cs = conditions(obj);
  const find = (t: string): Cond | undefined => cs.find((c) => c.type === t);
  const failure = find('ReplicaFailure');
  if (failure?.status === 'True') {
    return new UpdateError({
      reason: 'WorkloadNotProgressing',
      name,
      message: `deployment ${name} has some pods failing; unavailable replicas=${num(obj, 'status', 'unavailableReplicas', 0)}`,
    });
  }
  const available = find('Available');
  const progressing = find('Progressing');
  if (available?.status === 'False' && progressing?.status === 'False') {
    return new UpdateError({
      reason: 'WorkloadNotAvailable',
      name,
      message: `deployment ${name} is not available and not progressing; updated replicas=${num(obj, 'status', 'updatedReplicas', 0)} of ${num(obj, 'spec', 'replicas', 1)}, available replicas=${num(obj, 'status', 'availableReplicas', 0)} of ${num(obj, 'spec', 'replicas', 1)}`,
    });
  }
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return new UpdateError({
      reason: 'WorkloadNotProgressing',
      name,
      message: `deployment ${name} is not progressing; ${progressing.reason}: ${progressing.message ?? ''}`,
    });
  }
  return null;
};

/** DaemonSet: only "being deleted" is an error. */
export const checkDaemonSet: HealthCheckFn = (obj) =>
  deleting(obj) ? new Error(`daemonset ${nsName(obj)} is being deleted`) : null;

/** Job: failed without active pods (or Failed=True with DeadlineExceeded) is an error; running Jobs are fine. */
export const checkJob: HealthCheckFn = (obj) => {
  const st = child(obj, 'status');
  if (typeof st['succeeded'] === 'number' && st['succeeded'] > 0) return null;
  const failedCond = conditions(obj).find((c) => c.type === 'Failed' && c.status === 'True');
  const active = typeof st['active'] === 'number' ? st['active'] : 0;
  const failed = typeof st['failed'] === 'number' ? st['failed'] : 0;
  if ((active === 0 && failed > 0) || failedCond?.reason === 'DeadlineExceeded') {
    return new Error(
      `deadline exceeded, reason: ${JSON.stringify(failedCond?.reason ?? '')}, message: ${JSON.stringify(failedCond?.message ?? '')}`,
    );
  }
  return null;
};

/** CRD: `Established=True` required. */
export const checkCrd: HealthCheckFn = (obj) => {
  const name = String(child(obj, 'metadata')['name']);
  const est = conditions(obj).find((c) => c.type === 'Established');
  if (!est)
    return new Error(
      `CustomResourceDefinition ${name} does not declare an Established status condition: ${JSON.stringify(conditions(obj))}`,
    );
  if (est.status !== 'True')
    return new Error(
      `CustomResourceDefinition ${name} Established=${est.status ?? ''}, ${est.reason ?? ''}: ${est.message ?? ''}`,
    );
  return null;
};
