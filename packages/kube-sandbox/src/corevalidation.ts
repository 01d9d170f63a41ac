/**
 * Validation of built-in kinds beyond metadata, as kube-apiserver 1.32 applies it:
 * core/v1 Event (kubernetes `pkg/apis/core/validation/events.go`, `legacyValidateEvent`, which every Event write
 * passes) and coordination.k8s.io/v1 Lease (`pkg/apis/coordination/validation/validation.go`, `ValidateLeaseSpec`).
 */
import type { FieldError } from './errors.js';
import type { KubeObject } from './types.js';
import { isObject } from './util.js';
import { nameProblem } from './validation.js';

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** apimachinery `IsQualifiedName` messages. */
function qualifiedNameProblems(v: string): string[] {
  const parts = v.split('/');
  const out: string[] = [];
  let name = v;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) out.push('prefix part must be non-empty');
    else if (prefix.length > 253 || !SUBDOMAIN.test(prefix))
      out.push(`prefix part ${nameProblem('subdomain', prefix) ?? ''}`);
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) out.push('name part must be non-empty');
  else if (name.length > 63) out.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME.test(name))
    out.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  return out;
}

function newStyleEventErrors(ev: KubeObject, ns: string, involvedNs: string): FieldError[] {
  const errs: FieldError[] = [];
  if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system')
    errs.push({
      field: 'involvedObject.namespace',
      type: 'FieldValueInvalid',
      value: involvedNs,
      detail: 'does not match event.namespace',
    });
  const controller = str(ev['reportingComponent']);
  if (controller === '') errs.push({ field: 'reportingController', type: 'FieldValueRequired', detail: '' });
  for (const m of qualifiedNameProblems(controller))
    errs.push({ field: 'reportingController', type: 'FieldValueInvalid', value: controller, detail: m });
  const instance = str(ev['reportingInstance']);
  if (instance === '') errs.push({ field: 'reportingInstance', type: 'FieldValueRequired', detail: '' });
  if (instance.length > REPORTING_INSTANCE_LIMIT)
    errs.push({
      field: 'reportingInstance',
      type: 'FieldValueInvalid',
      value: '',
      detail: `can have at most ${REPORTING_INSTANCE_LIMIT} characters`,
    });
  const action = str(ev['action']);
  if (action === '') errs.push({ field: 'action', type: 'FieldValueRequired', detail: '' });
  if (action.length > ACTION_LIMIT)
    errs.push({
      field: 'action',
      type: 'FieldValueInvalid',
      value: '',
      detail: `can have at most ${ACTION_LIMIT} characters`,
    });
  const reason = str(ev['reason']);
  if (reason === '') errs.push({ field: 'reason', type: 'FieldValueRequired', detail: '' });
  if (reason.length > REASON_LIMIT)
    errs.push({
      field: 'reason',
      type: 'FieldValueInvalid',
      value: '',
      detail: `can have at most ${REASON_LIMIT} characters`,
    });
  if (str(ev['message']).length > NOTE_LIMIT)
    errs.push({
      field: 'message',
      type: 'FieldValueInvalid',
      value: '',
      detail: `can have at most ${NOTE_LIMIT} characters`,
    });
  return errs;
}

/**
 * `legacyValidateEvent`: an Event without `eventTime` must name its involved object's namespace (empty only in
 * the `default` namespace); one with `eventTime` needs the reporting fields.
 */
export function validateEvent(ev: KubeObject): FieldError[] {
  const ns = ev.metadata?.namespace ?? '';
  const involved = isObject(ev['involvedObject']) ? ev['involvedObject'] : {};
  const involvedNs = str(involved['namespace']);
  const errs: FieldError[] = [];
  if (!ev['eventTime']) {
    const mismatch = involvedNs === '' ? ns !== '' && ns !== 'default' : ns !== involvedNs;
    if (mismatch)
      errs.push({
        field: 'involvedObject.namespace',
        type: 'FieldValueInvalid',
        value: involvedNs,
        detail: 'does not match event.namespace',
      });
  } else errs.push(...newStyleEventErrors(ev, ns, involvedNs));
  const nsProblem = ns.length > 253 || !SUBDOMAIN.test(ns) ? nameProblem('subdomain', ns) : null;
  if (nsProblem) errs.push({ field: 'namespace', type: 'FieldValueInvalid', value: ns, detail: nsProblem });
  return errs;
}

/** `ValidateLeaseSpec`. */
export function validateLease(lease: KubeObject): FieldError[] {
  const spec = isObject(lease['spec']) ? lease['spec'] : {};
  const errs: FieldError[] = [];
  const duration = spec['leaseDurationSeconds'];
  if (typeof duration === 'number' && duration <= 0)
    errs.push({
      field: 'spec.leaseDurationSeconds',
      type: 'FieldValueInvalid',
      value: duration,
      detail: 'must be greater than 0',
    });
  const transitions = spec['leaseTransitions'];
  if (typeof transitions === 'number' && transitions < 0)
    errs.push({
      field: 'spec.leaseTransitions',
      type: 'FieldValueInvalid',
      value: transitions,
      detail: 'must be greater than or equal to 0',
    });
  const strategy = str(spec['strategy']);
  if (strategy !== '') {
    if (!strategy.includes('/')) {
      if (strategy !== 'OldestEmulationVersion')
        errs.push({
          field: 'spec.strategy.strategy',
          type: 'FieldValueNotSupported',
          value: strategy,
          detail: 'supported values: "OldestEmulationVersion"',
        });
    } else
      for (const m of qualifiedNameProblems(strategy))
        errs.push({ field: 'spec.strategy.strategy', type: 'FieldValueInvalid', value: strategy, detail: m });
  }
  if (str(spec['preferredHolder']) !== '' && strategy === '')
    errs.push({
      field: 'spec.preferredHolder',
      type: 'FieldValueForbidden',
      detail: 'may only be specified if `strategy` is defined',
    });
  return errs;
}
