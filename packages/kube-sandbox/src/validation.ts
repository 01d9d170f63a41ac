/** Metadata validation shared by all kinds (names, labels, annotations). */
import type { FieldError } from './errors.js';
import type { KubeObject, ResourceType } from './types.js';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/** Validates a resource name per the type's rule; returns the problem text or null. */
export function nameProblem(rule: ResourceType['nameRule'], name: string): string | null {
  if (rule === 'path') {
    if (name === '.' || name === '..') return `may not be '${name}'`;
    if (name.includes('/')) return "may not contain '/'";
    if (name.includes('%')) return "may not contain '%'";
    return null;
  }
  if (rule === 'label') {
    if (name.length > 63) return 'must be no more than 63 characters';
    return LABEL.test(name) ? null : LABEL_MSG;
  }
  if (name.length > 253) return 'must be no more than 253 characters';
  return SUBDOMAIN.test(name) ? null : SUBDOMAIN_MSG;
}

function qualifiedKeyProblem(key: string): string | null {
  const parts = key.split('/');
  if (parts.length > 2)
    return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
  const first = parts[0] ?? '';
  const name = parts.length === 2 ? (parts[1] ?? '') : first;
  if (parts.length === 2 && (first.length > 253 || !SUBDOMAIN.test(first))) return `prefix part ${SUBDOMAIN_MSG}`;
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!QUALIFIED_NAME.test(name))
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  return null;
}

/** Validates object metadata; returns field errors. */
export function validateMeta(t: ResourceType, obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const md = obj.metadata ?? {};
  const name = md.name ?? '';
  if (!name) {
    errs.push({ field: 'metadata.name', type: 'FieldValueRequired', detail: 'name or generateName is required' });
  } else {
    const p = nameProblem(t.nameRule, name);
    if (p) errs.push({ field: 'metadata.name', type: 'FieldValueInvalid', value: name, detail: p });
  }
  const labels = md.labels;
  if (labels !== undefined) {
    if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) {
      errs.push({
        field: 'metadata.labels',
        type: 'FieldValueTypeInvalid',
        value: labels,
        detail: 'must be a map of strings',
      });
    } else {
      for (const [k, v] of Object.entries(labels)) {
        const kp = qualifiedKeyProblem(k);
        if (kp) errs.push({ field: 'metadata.labels', type: 'FieldValueInvalid', value: k, detail: kp });
        if (typeof v !== 'string')
          errs.push({ field: `metadata.labels`, type: 'FieldValueTypeInvalid', value: v, detail: 'must be a string' });
        else if (v.length > 63 || !LABEL_VALUE.test(v))
          errs.push({
            field: 'metadata.labels',
            type: 'FieldValueInvalid',
            value: v,
            detail:
              "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
          });
      }
    }
  }
  const ann = md.annotations;
  if (ann !== undefined) {
    if (ann === null || typeof ann !== 'object' || Array.isArray(ann)) {
      errs.push({
        field: 'metadata.annotations',
        type: 'FieldValueTypeInvalid',
        value: ann,
        detail: 'must be a map of strings',
      });
    } else {
      let total = 0;
      for (const [k, v] of Object.entries(ann)) {
        const kp = qualifiedKeyProblem(k);
        if (kp) errs.push({ field: 'metadata.annotations', type: 'FieldValueInvalid', value: k, detail: kp });
        if (typeof v !== 'string')
          errs.push({
            field: 'metadata.annotations',
            type: 'FieldValueTypeInvalid',
            value: v,
            detail: 'must be a string',
          });
        else total += k.length + v.length;
      }
      if (total > 262144)
        errs.push({
          field: 'metadata.annotations',
          type: 'FieldValueTypeInvalid',
          value: '',
          detail: 'Too long: must have at most 262144 bytes',
        });
    }
  }
  return errs;
}
