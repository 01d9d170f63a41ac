import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/spec/errors.js';
import type { StructName } from '../../src/spec/shape.js';
import {
  checkFilesystemFormat,
  checkFilesystemLabel,
  checkGUID,
  checkMode,
  checkModeSpecialBits,
  checkPartitionLabel,
  checkPath,
  checkProxyURL,
  checkUnitName,
  checkURLNilOK,
  Collector,
  hashParts,
  parseHeaders,
} from '../../src/spec/semantic-checks.js';
import { Rules, validateNode3 } from '../../src/spec/semantic.js';
import type { ReportEntry } from '../../src/spec/types.js';
import { ignitionVectors, type IgnVector } from './vectors.js';

type Entry = { kind: string; message: string; path: (string | number)[]; name?: string | null };
const norm = (es: Entry[] | undefined): Entry[] =>
  (es ?? []).map((e) => ({ kind: e.kind, message: e.message, path: e.path, name: e.name ?? null }));
const normErr = (f: Finding | null | { message: string; name?: string | null }): unknown =>
  f === null ? null : { message: f.message, name: f.name ?? null };

function minorOf(spec: string): number {
  return Number(spec.split('.')[1]);
}
function obj(v: unknown): Record<string, unknown> {
  return (v ?? {}) as Record<string, unknown>;
}

/** Self-only report of one node (upstream calls `node.Validate(ctx)` directly). */
function selfReport(struct: StructName, input: unknown, spec: string, root: (string | number)[] = []): ReportEntry[] {
  const rules = new Rules({ version: spec, minor: minorOf(spec) });
  const r = new Collector();
  if (struct === 'Storage') rules.storage(obj(input), root, r);
  else rules.node(struct, obj(input), root, r, '');
  return r.entries;
}

function errorAt(struct: StructName, input: unknown, spec: string, path: (string | number)[]): unknown {
  const entries = selfReport(struct, input, spec).filter(
    (e) => e.kind === 'error' && JSON.stringify(e.path) === JSON.stringify(path),
  );
  return entries.length === 0 ? null : { message: entries[0]!.message, name: entries[0]!.name ?? null };
}

const NODE_CHECKS: Record<string, { struct: StructName; root?: (string | number)[] }> = {
  'Cex.Validate': { struct: 'Cex' },
  'ClevisCustom.Validate': { struct: 'ClevisCustom' },
  'Dropin.Validate': { struct: 'Dropin' },
  'NodeGroup.Validate': { struct: 'NodeOwner' },
  'NodeUser.Validate': { struct: 'NodeOwner' },
  'Raid.Validate': { struct: 'Raid' },
  'Storage.Validate': { struct: 'Storage' },
  'Systemd.Validate (instantiated-unit install-section warning)': { struct: 'Systemd' },
  // the vectors give paths relative to the "foo" context the Go test used
  'Tang.Validate (context path starts at "foo")': { struct: 'Tang' },
  'Unit.Validate': { struct: 'Unit' },
  'Verification.Validate': { struct: 'Verification' },
  'Config.Validate (top-level cross-section checks only, context $=json root)': { struct: 'Config' },
};

const RECURSIVE_CHECKS: Record<string, { struct: StructName; dups: boolean }> = {
  'generic recursive validation of IgnitionConfig (every nested Validate)': { struct: 'IgnitionConfig', dups: false },
  'generic recursive validation of TLS': { struct: 'TLS', dups: false },
  'generic recursive validation incl. duplicate check (ValidateWithContext) of KernelArguments': {
    struct: 'KernelArguments',
    dups: true,
  },
};

const FULL_STRUCT: Record<string, StructName> = {
  'File: overwrite=true requires contents.source': 'File',
  'Resource: verification.hash requires source': 'Resource',
  'Filesystem.format rules': 'Filesystem',
  'Filesystem.path must be absolute+clean when set': 'Filesystem',
};

function runCheck(v: IgnVector): void {
  const check = v.check!;
  const spec = v.spec;
  const minor = minorOf(spec);
  const input = v.input;
  const node = NODE_CHECKS[check];
  if (node) {
    expect(norm(selfReport(node.struct, input, spec, node.root ?? []))).toEqual(norm(v.expected['report'] as Entry[]));
    if (v.full_report && check.startsWith('Config.Validate')) {
      // ValidateWithContext(cfg, nil) on the whole config (version "" included)
      expect(norm(validateNode3('Config', input, { version: spec, minor }))).toEqual(norm(v.full_report));
    } else if (v.full_report) {
      expect(norm(validateNode3(node.struct, input, { version: spec, minor }, node.root ?? []))).toEqual(
        norm(v.full_report),
      );
    }
    return;
  }
  const rec = RECURSIVE_CHECKS[check];
  if (rec) {
    const got = validateNode3(rec.struct, input, { version: spec, minor }, [], rec.dups);
    expect(norm(got)).toEqual(norm(v.expected['report'] as Entry[]));
    if (v.expected_string !== undefined) {
      expect(got.map((e) => `${e.kind} at $.${e.path.join('.')}: ${e.message}\n`).join('')).toBe(v.expected_string);
    }
    return;
  }
  const struct = FULL_STRUCT[check];
  if (struct) {
    const path: Record<string, (string | number)[]> = {
      File: ['overwrite'],
      Resource: ['verification', 'hash'],
      Filesystem: check.startsWith('Filesystem.format') ? ['format'] : ['path'],
    };
    // upstream tests one helper: take only that helper's finding
    let got: unknown;
    if (check === 'Filesystem.format rules')
      got = normErr(checkFilesystemFormat(obj(input), minor, spec.includes('experimental')));
    else got = errorAt(struct, input, spec, path[struct]!);
    expect(got).toEqual(v.expected['error']);
    if (v.full_report) {
      expect(norm(validateNode3(struct, input, { version: spec, minor }, [], true))).toEqual(norm(v.full_report));
    }
    return;
  }
  const s = input as string;
  switch (check) {
    case 'Filesystem.label length per format':
      expect(normErr(checkFilesystemLabel(obj(input), minor, false))).toEqual(v.expected['error']);
      return;
    case 'mode must be within 0..07777':
      expect(normErr(checkMode(input))).toEqual(v.expected['error']);
      return;
    case 'setuid/setgid/sticky bits produce warning before 3.6.0':
      expect(normErr(minor >= 6 ? null : checkModeSpecialBits(input))).toEqual(v.expected['error']);
      return;
    case 'partition label (<=36 chars, no colon)':
      expect(normErr(checkPartitionLabel(input))).toEqual(v.expected['error']);
      return;
    case 'partition guid/typeGuid format':
      expect(normErr(checkGUID(input))).toEqual(v.expected['error']);
      return;
    case 'path absolute and clean':
      expect(normErr(checkPath(s))).toEqual(v.expected['error']);
      return;
    case 'unit name suffix':
      expect(normErr(checkUnitName(s))).toEqual(v.expected['error']);
      return;
    case 'URL scheme / data-url / s3 / arn checks (nil or empty is OK)':
      expect(normErr(checkURLNilOK(input, minor))).toEqual(v.expected['error']);
      return;
    case 'split verification hash "<fn>-<hex>" (input strings include literal quote characters in upstream test)': {
      const parts = hashParts(s);
      expect('message' in parts ? normErr(parts) : null).toEqual(v.expected['error']);
      return;
    }
    case 'HTTPHeaders to request headers (name non-empty, value non-empty)': {
      const parsed = parseHeaders(input as { name?: string; value?: string | null }[]);
      expect(Array.isArray(parsed) ? null : normErr(parsed)).toEqual(v.expected['error']);
      return;
    }
    case 'proxy URL check for one field (httpOk=false means the https proxy field)': {
      const { url, httpOk } = input as { url: string | null; httpOk: boolean };
      const f = checkProxyURL(url, httpOk);
      expect(f === null ? null : { kind: f.kind, message: f.message, name: f.name, path: [] }).toEqual(
        v.expected['entry'],
      );
      return;
    }
    default:
      throw new Error(`unhandled check ${check}`);
  }
}

const checks = ignitionVectors.filter((v) => v.kind === 'validate' && v.check !== undefined);

describe('ignition-vectors validate (node checks)', () => {
  it('has the vectors', () => {
    expect(checks.length).toBe(1155);
  });
  for (const v of checks) it(v.name, () => runCheck(v));
});
