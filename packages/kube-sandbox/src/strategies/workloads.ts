/** apps/v1 workloads and batch/v1 Jobs and CronJobs: defaults, an empty status on create, selector validation. */
import { matchLabelRequirements } from '@keelson/api';
import type { Cluster } from '../cluster.js';
import { DEFAULTERS } from '../defaults.js';
import { requirementsFromSelector } from '../selectors.js';
import type { JsonObject } from '../types.js';
import { isObject, must } from '../util.js';

export function installWorkloadStrategies(cluster: Cluster): void {
  for (const plural of ['deployments', 'replicasets', 'statefulsets', 'daemonsets']) {
    const defaulter = must(DEFAULTERS[`apps/${plural}`], `defaulter of apps/${plural}`);
    cluster.setStrategy('apps', plural, {
      prepareCreate(obj) {
        defaulter(obj);
        obj['status'] = {};
      },
      prepareUpdate(obj) {
        defaulter(obj);
      },
      validate(obj) {
        const spec = isObject(obj['spec']) ? obj['spec'] : {};
        const errs: ReturnType<NonNullable<Parameters<Cluster['setStrategy']>[2]['validate']>> = [];
        const reqs = requirementsFromSelector(spec['selector']);
        if (!reqs || reqs.length === 0) errs.push({ field: 'spec.selector', type: 'FieldValueRequired', detail: '' });
        const tmplLabels = (((spec['template'] as JsonObject | undefined)?.['metadata'] as JsonObject | undefined)?.[
          'labels'
        ] ?? {}) as Record<string, string>;
        if (reqs && reqs.length && !matchLabelRequirements(reqs, tmplLabels))
          errs.push({
            field: 'spec.template.metadata.labels',
            type: 'FieldValueInvalid',
            value: tmplLabels,
            detail: '`selector` does not match template `labels`',
          });
        return errs;
      },
    });
  }
  for (const plural of ['jobs', 'cronjobs']) {
    const defaulter = must(DEFAULTERS[`batch/${plural}`], `defaulter of batch/${plural}`);
    cluster.setStrategy('batch', plural, { prepareCreate: defaulter, prepareUpdate: defaulter });
  }
}
