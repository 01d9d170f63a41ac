import { describe, expect, it } from 'vitest';
import {
  formatOstreeImageReference,
  parseOstreeImageReference,
  unverifiedRegistryReference,
  containersStorageReference,
} from '../src/index.js';

describe('ostree image references', () => {
  it('unverified registry and docker:// image are equivalent', () => {
    for (const r of [
      'ostree-unverified-image:docker://quay.io/exampleos/blah',
      'ostree-unverified-registry:quay.io/exampleos/blah',
    ]) {
      const p = parseOstreeImageReference(r);
      expect(p).toStrictEqual({
        sigverify: { kind: 'insecure' },
        imgref: { transport: 'registry', name: 'quay.io/exampleos/blah' },
      });
      expect(formatOstreeImageReference(p)).toBe('ostree-unverified-registry:quay.io/exampleos/blah');
    }
  });
  it('ostree remote forms are equivalent', () => {
    for (const r of [
      'ostree-remote-registry:fedora:quay.io/fedora/fedora-coreos:stable',
      'ostree-remote-image:fedora:registry:quay.io/fedora/fedora-coreos:stable',
      'ostree-remote-image:fedora:docker://quay.io/fedora/fedora-coreos:stable',
    ]) {
      const p = parseOstreeImageReference(r);
      expect(p.sigverify).toStrictEqual({ kind: 'ostree-remote', remote: 'fedora' });
      expect(p.imgref).toStrictEqual({ transport: 'registry', name: 'quay.io/fedora/fedora-coreos:stable' });
      expect(formatOstreeImageReference(p)).toBe('ostree-remote-registry:fedora:quay.io/fedora/fedora-coreos:stable');
    }
  });
  it('signed, containers-storage and oci forms round-trip', () => {
    for (const r of [
      'ostree-image-signed:docker://quay.io/fedora/fedora-coreos:stable',
      'ostree-unverified-image:containers-storage:quay.io/x/y@sha256:abcd',
      'ostree-unverified-image:oci:/var/tmp/img',
      'ostree-image-signed:oci-archive:/tmp/x.tar',
      'ostree-remote-image:fedora:oci:/srv/img',
    ]) {
      expect(formatOstreeImageReference(parseOstreeImageReference(r))).toBe(r);
    }
    expect(parseOstreeImageReference('ostree-image-signed:docker://q/x:1').sigverify.kind).toBe('container-policy');
  });
  it('builders used by the daemon', () => {
    expect(unverifiedRegistryReference('quay.io/a/b@sha256:00')).toBe(
      'ostree-unverified-registry:quay.io/a/b@sha256:00',
    );
    expect(containersStorageReference('quay.io/a/b@sha256:00')).toBe(
      'ostree-unverified-image:containers-storage:quay.io/a/b@sha256:00',
    );
  });
  it('refuses malformed references with a typed error', () => {
    for (const bad of [
      '',
      'quay.io/x',
      'ostree-foo:bar',
      'ostree-unverified-image:docker:quay.io/x',
      'ostree-unverified-image:noimage',
      'ostree-remote-registry:onlyremote',
      'ostree-unverified-registry:',
      'ostree-unverified-registry:a b',
      'ostree-unverified-image:oci:',
    ]) {
      expect(() => parseOstreeImageReference(bad), bad).toThrow(expect.objectContaining({ code: 'IMAGE_REFERENCE' }));
    }
  });
});
