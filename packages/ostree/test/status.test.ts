import { describe, expect, it } from 'vitest';
import {
  StatusParseError,
  baseChecksumOf,
  bootedDeployment,
  coreosStreamOf,
  osImageUrlOf,
  parseRpmOstreeStatus,
  pendingDeployment,
  rollbackDeployment,
  stagedDeployment,
  statusToJson,
} from '../src/index.js';
import { fixture, fixtures } from './helpers.js';

const KNOWN_TO_TYPED: Record<string, string> = {
  id: 'id',
  osname: 'osname',
  serial: 'serial',
  checksum: 'checksum',
  'base-checksum': 'baseChecksum',
  version: 'version',
  timestamp: 'timestamp',
  'base-version': 'baseVersion',
  'base-timestamp': 'baseTimestamp',
  booted: 'booted',
  staged: 'staged',
  pinned: 'pinned',
  'finalization-locked': 'finalizationLocked',
  unlocked: 'unlocked',
  'regenerate-initramfs': 'regenerateInitramfs',
  origin: 'origin',
  'custom-origin': 'customOrigin',
  'container-image-reference': 'containerImageReference',
  'container-image-reference-digest': 'containerImageReferenceDigest',
  packages: 'packages',
  'requested-packages': 'requestedPackages',
  'requested-local-packages': 'requestedLocalPackages',
  'requested-base-removals': 'requestedBaseRemovals',
  'base-removals': 'baseRemovals',
  'requested-base-local-replacements': 'requestedBaseLocalReplacements',
  'base-local-replacements': 'baseLocalReplacements',
  'base-commit-meta': 'baseCommitMeta',
  'layered-commit-meta': 'layeredCommitMeta',
  'pending-base-checksum': 'pendingBaseChecksum',
  'pending-base-version': 'pendingBaseVersion',
  'pending-base-timestamp': 'pendingBaseTimestamp',
  'gpg-enabled': 'gpgEnabled',
};

describe('parseRpmOstreeStatus on every real fixture', () => {
  const all = fixtures();
  it('finds the 7 fixtures', () => {
    expect(all.length).toBe(7);
  });
  for (const [name, text] of all) {
    it(`${name}: parses without loss, typed fields equal the raw values, unknown keys kept`, () => {
      const s = parseRpmOstreeStatus(text, name);
      const original = JSON.parse(text) as Record<string, unknown>;
      expect(statusToJson(s)).toStrictEqual(original);
      expect(JSON.stringify(statusToJson(s))).toBe(JSON.stringify(original));
      const deps = original['deployments'] as Record<string, unknown>[];
      expect(s.deployments).toHaveLength(deps.length);
      s.deployments.forEach((d, i) => {
        const raw = deps[i] as Record<string, unknown>;
        for (const [key, value] of Object.entries(raw)) {
          const typed = KNOWN_TO_TYPED[key];
          if (typed)
            expect((d as unknown as Record<string, unknown>)[typed], `${name} [${i}].${key}`).toStrictEqual(value);
          else expect(d.unknown[key], `${name} [${i}].${key} kept in unknown`).toStrictEqual(value);
        }
        expect(Object.keys(d.unknown).every((k) => !(k in KNOWN_TO_TYPED))).toBe(true);
        if (d.containerImageReference !== undefined) expect(d.imageReference, `${name} image ref parsed`).toBeDefined();
      });
      expect(s.transaction).toStrictEqual(original['transaction'] ?? null);
      expect(s.cachedUpdate).toStrictEqual(original['cached-update'] ?? null);
      expect(bootedDeployment(s)).toBeDefined();
    });
  }
});

describe('deployment queries', () => {
  it('zincati staged: staged+locked first, booted second with pending-base fields', () => {
    const s = parseRpmOstreeStatus(fixture('zincati/rpm-ostree-staged.json'));
    const staged = stagedDeployment(s);
    expect(staged?.staged).toBe(true);
    expect(staged?.finalizationLocked).toBe(true);
    expect(staged?.pending).toBe(true);
    expect(s.deployments[0]).toBe(staged);
    const booted = bootedDeployment(s);
    expect(booted?.booted).toBe(true);
    expect(booted?.pendingBaseChecksum).toMatch(/^[0-9a-f]{64}$/);
    expect(booted?.origin).toContain('fedora/x86_64/coreos');
    expect(pendingDeployment(s)).toBe(staged);
    expect(rollbackDeployment(s)).toBeUndefined();
  });
  it('zincati signed image: image reference, digest, stream from image-config label', () => {
    const s = parseRpmOstreeStatus(fixture('zincati/rpm-ostree-status.json'));
    const b = bootedDeployment(s);
    expect(b).toBeDefined();
    if (!b) return;
    expect(b.imageReference?.sigverify.kind).toBe('container-policy');
    expect(b.imageReference?.imgref.transport).toBe('registry');
    expect(osImageUrlOf(b)).toBe(b.imageReference?.imgref.name);
    expect(b.containerImageReferenceDigest).toMatch(/^sha256:/);
    expect(s.updateDriver?.driverName).toBeTruthy();
    expect(coreosStreamOf(b)).toBeTruthy();
  });
  it('zincati annotation fixture: stream falls back to the manifest annotation', () => {
    const s = parseRpmOstreeStatus(fixture('zincati/rpm-ostree-status-annotation.json'));
    const b = bootedDeployment(s);
    expect(b && coreosStreamOf(b)).toBeTruthy();
  });
  it('client-go container fixture: staged unverified-registry rebase over an ostree-refspec boot', () => {
    const s = parseRpmOstreeStatus(fixture('rpmostree-client-go/fcos-container-status.json'));
    const st = stagedDeployment(s);
    expect(st?.containerImageReference).toBe('ostree-unverified-registry:quay.io/fedora/fedora-coreos:testing-devel');
    expect(st && osImageUrlOf(st)).toBe('quay.io/fedora/fedora-coreos:testing-devel');
    expect(st?.imageReference?.sigverify).toStrictEqual({ kind: 'insecure' });
    const b = bootedDeployment(s);
    expect(b?.containerImageReference).toBeUndefined();
    expect(b && osImageUrlOf(b)).toBeUndefined();
  });
  it('client-go overrides fixture: layered package, base removal, base checksum differs', () => {
    const s = parseRpmOstreeStatus(fixture('rpmostree-client-go/fcos-with-overrides-status.json'));
    const st = stagedDeployment(s);
    expect(st?.requestedPackages).toContain('strace');
    expect(st?.requestedBaseRemovals).toContain('moby-engine');
    expect(st?.baseChecksum).toBeDefined();
    expect(st && baseChecksumOf(st)).not.toBe(st?.checksum);
    const b = bootedDeployment(s);
    expect(b && baseChecksumOf(b)).toBe(b?.checksum);
  });
  it('workstation: booted first, rollback second', () => {
    const s = parseRpmOstreeStatus(fixture('rpm-ostree/workstation-status.json'));
    expect(s.deployments[0]?.booted).toBe(true);
    expect(rollbackDeployment(s)).toBe(s.deployments[1]);
    expect(pendingDeployment(s)).toBeUndefined();
    expect(s.deployments[0]?.requestedPackages.length).toBeGreaterThan(3);
  });
});

describe('malformed status', () => {
  it('reports invalid JSON', () => {
    expect(() => parseRpmOstreeStatus('{', 'x.json')).toThrow(StatusParseError);
  });
  it('names the JSON path of a wrong type', () => {
    const doc = JSON.parse(fixture('zincati/rpm-ostree-staged.json')) as { deployments: Record<string, unknown>[] };
    (doc.deployments[1] as Record<string, unknown>)['booted'] = 'yes';
    try {
      parseRpmOstreeStatus(JSON.stringify(doc), 'f.json');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StatusParseError);
      expect((e as StatusParseError).path).toBe('$.deployments[1].booted');
      expect((e as StatusParseError).code).toBe('STATUS_PARSE');
      expect((e as Error).message).toContain('f.json');
    }
  });
  it('requires deployments array and ids', () => {
    expect(() => parseRpmOstreeStatus('[]')).toThrow(/\$: expected a JSON object/);
    expect(() => parseRpmOstreeStatus('{"deployments":{}}')).toThrow(/\$\.deployments: expected an array/);
    expect(() => parseRpmOstreeStatus('{"deployments":[{"osname":"x","serial":0,"checksum":"c"}]}')).toThrow(
      /\$\.deployments\[0\]\.id/,
    );
    expect(() => parseRpmOstreeStatus('{"deployments":[{"id":"a","osname":"x","serial":-1,"checksum":"c"}]}')).toThrow(
      /serial/,
    );
  });
  it('keeps unknown top-level and deployment fields', () => {
    const s = parseRpmOstreeStatus(
      '{"deployments":[{"id":"a","osname":"x","serial":0,"checksum":"c","booted":true,"future":{"k":[1]}}],"transaction":null,"new-top":1}',
    );
    expect(s.deployments[0]?.unknown).toStrictEqual({ future: { k: [1] } });
    expect(s.unknown).toStrictEqual({ 'new-top': 1 });
    expect(s.deployments[0]?.staged).toBe(false);
  });
});
