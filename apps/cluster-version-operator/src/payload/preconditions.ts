/**
 * Update preconditions (openshift/cluster-version-operator pkg/payload/precondition). The checks themselves live in @keelson/update-graph (`runPreconditions`), shared
 * with `keelson upgrade plan`; this module turns their summary into the CVO's `UpgradePreconditionCheckFailed`
 * {@link UpdateError}.
 */
import { summarizePreconditions as summarize, type PreconditionError } from '@keelson/update-graph';
import { UpdateError } from '../errors.js';

export { runPreconditions, type PreconditionError } from '@keelson/update-graph';

/** Result of {@link summarizePreconditions}. */
export interface PreconditionSummary {
  blocking: boolean;
  /** The UpdateError (reason `UpgradePreconditionCheckFailed`), or null when everything passed. */
  error: UpdateError | null;
}

/** `precondition.Summarize(errs, force)` as the CVO's UpdateError: blocking unless every error warns or `force`. */
export function summarizePreconditions(errs: readonly PreconditionError[], force: boolean): PreconditionSummary {
  const s = summarize(errs, force);
  if (s.message === null) return { blocking: false, error: null };
  return {
    blocking: s.blocking,
    error: new UpdateError({ reason: 'UpgradePreconditionCheckFailed', name: 'PreconditionCheck', message: s.message }),
  };
}
