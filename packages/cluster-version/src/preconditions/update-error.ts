/**
 * The preconditions' summary as the CVO's `UpgradePreconditionCheckFailed` {@link UpdateError}
 * (openshift/cluster-version-operator pkg/payload/precondition/precondition.go `Summarize`, as
 * pkg/cvo/sync_worker.go reports it).
 */
import { UpdateError } from '../errors.js';
import { summarizePreconditions, type PreconditionError } from './preconditions.js';

/** Result of {@link preconditionsUpdateError}. */
export interface PreconditionUpdateError {
  blocking: boolean;
  /** The UpdateError (reason `UpgradePreconditionCheckFailed`), or null when everything passed. */
  error: UpdateError | null;
}

/** `precondition.Summarize(errs, force)` as the CVO's UpdateError: blocking unless every error warns or `force`. */
export function preconditionsUpdateError(errs: readonly PreconditionError[], force: boolean): PreconditionUpdateError {
  const s = summarizePreconditions(errs, force);
  if (s.message === null) return { blocking: false, error: null };
  return {
    blocking: s.blocking,
    error: new UpdateError({ reason: 'UpgradePreconditionCheckFailed', name: 'PreconditionCheck', message: s.message }),
  };
}
