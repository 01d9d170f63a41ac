/** Typed errors of the Cluster Version Operator's sync (upstream pkg/payload/task.go `UpdateError` and friends). */
import { KubeApiError, KubeError } from '@keelson/kube';

/** How an {@link UpdateError} affects the sync (upstream `UpdateEffectType`). */
export type UpdateEffect = 'Report' | 'None' | 'Fail' | 'FailAfterInterval';

/** Fields of an {@link UpdateError}. */
export interface UpdateErrorInit {
  reason: string;
  message: string;
  /** Default `Fail`. */
  effect?: UpdateEffect;
  /** Name of the ClusterOperator(s) or step at fault (upstream `Name`). */
  name?: string;
  /** Names of every operator condensed into a plural error. */
  names?: string[];
  /** The task it happened in (`Task.String()`). */
  task?: string;
  cause?: unknown;
}

/** Upstream `payload.UpdateError`: an error with a reason the ClusterVersion conditions report. */
export class UpdateError extends Error {
  /** Stable machine code (`UpdateError`). */
  readonly code = 'UpdateError';
  readonly reason: string;
  readonly effect: UpdateEffect;
  readonly updateName: string;
  readonly names: string[];
  readonly task: string | undefined;
  constructor(init: UpdateErrorInit) {
    super(init.message, init.cause !== undefined ? { cause: init.cause } : undefined);
    this.name = 'UpdateError';
    this.reason = init.reason;
    this.effect = init.effect ?? 'Fail';
    this.updateName = init.name ?? '';
    this.names = init.names ?? (init.name !== undefined && init.name !== '' ? [init.name] : []);
    this.task = init.task;
  }
}

/** Upstream's classification of an API error into an update reason and cause text (upstream pkg/payload/task.go, SummaryForReason). */
export function classifyApiError(err: unknown): { reason: string; cause: string } {
  if (err instanceof KubeApiError) {
    const s = err.status;
    const r = err.reason;
    if (s === 404 || r === 'AlreadyExists')
      return { reason: 'UpdatePayloadResourceNotFound', cause: 'resource may have been deleted' };
    if (s === 409) return { reason: 'UpdatePayloadResourceConflict', cause: 'someone else is updating this resource' };
    if (s === 504 && r === 'Timeout')
      return { reason: 'UpdatePayloadClusterDown', cause: 'the server is down or not responding' };
    if (s === 429 || r === 'ServerTimeout')
      return {
        reason: 'UpdatePayloadClusterOverloaded',
        cause: 'the server is overloaded and is not accepting updates',
      };
    if (s === 503 || s === 504 || r === 'Timeout')
      return { reason: 'UpdatePayloadClusterDown', cause: 'the server is down or not responding' };
    if (s === 500) return { reason: 'UpdatePayloadClusterError', cause: 'the server is reporting an internal error' };
    if (s === 422)
      return {
        reason: 'UpdatePayloadResourceInvalid',
        cause: 'the object is invalid, possibly due to local cluster configuration',
      };
    if (s === 401) return { reason: 'UpdatePayloadClusterUnauthorized', cause: 'could not authenticate to the server' };
    if (s === 403)
      return { reason: 'UpdatePayloadResourceForbidden', cause: 'the server has forbidden updates to this resource' };
    if (s >= 500) return { reason: 'UpdatePayloadClusterDown', cause: 'the server is down or not responding' };
    return { reason: 'UpdatePayloadFailed', cause: '' };
  }
  if (err instanceof NoKindMatchError)
    return {
      reason: 'UpdatePayloadResourceTypeMissing',
      cause: 'the server does not recognize this resource, check extension API servers',
    };
  if (err instanceof KubeError && err.code === 'KUBE_NETWORK')
    return { reason: 'UpdatePayloadClusterDown', cause: 'the server is down or not responding' };
  return { reason: 'UpdatePayloadFailed', cause: '' };
}

/** The API server does not serve the manifest's kind (upstream `meta.NoKindMatchError`). */
export class NoKindMatchError extends Error {
  readonly code = 'NoKindMatch';
  constructor(readonly gvk: string) {
    super(`no matches for kind ${JSON.stringify(gvk)}`);
    this.name = 'NoKindMatchError';
  }
}

/** Upstream `SummaryForReason`: the short text Progressing shows for a failed update. */
export function summaryForReason(reason: string, name: string): string {
  switch (reason) {
    case 'UpdatePayloadResourceNotFound':
    case 'UpdatePayloadResourceConflict':
      return 'some resources could not be updated';
    case 'UpdatePayloadClusterDown':
      return 'the control plane is down or not responding';
    case 'UpdatePayloadClusterError':
      return 'the control plane is reporting an internal error';
    case 'UpdatePayloadClusterOverloaded':
      return 'the control plane is overloaded and is not accepting updates';
    case 'UpdatePayloadClusterUnauthorized':
      return 'could not authenticate to the server';
    case 'UpdatePayloadRetrievalFailed':
      return 'could not download the update';
    case 'UpdatePayloadResourceForbidden':
      return 'the server is rejecting updates';
    case 'UpdatePayloadResourceTypeMissing':
      return 'a required extension is not available to update';
    case 'UpdatePayloadResourceInvalid':
      return 'some cluster configuration is invalid';
    case 'UpdatePayloadIntegrity':
      return 'the contents of the update are invalid';
    case 'ImageVerificationFailed':
      return 'the image may not be safe to use';
    case 'UpgradePreconditionCheckFailed':
      return 'it may not be safe to apply this update';
    case 'ClusterOperatorDegraded':
      return `the cluster operator ${name} is degraded`;
    case 'ClusterOperatorNotAvailable':
      return `the cluster operator ${name} is not available`;
    case 'ClusterOperatorsNotAvailable':
      return 'some cluster operators are not available';
    case 'ClusterOperatorNoVersions':
      return `the cluster operator ${name} does not declare expected versions`;
    case 'WorkloadNotAvailable':
      return `the workload ${name} has not yet successfully rolled out`;
    case 'WorkloadNotProgressing':
      return `the workload ${name} cannot roll out`;
    default:
      if (reason.startsWith('UpdatePayload')) return 'the update could not be applied';
      if (name !== '') return `${name} has an unknown error: ${reason}`;
      return `an unknown error has occurred: ${reason}`;
  }
}
