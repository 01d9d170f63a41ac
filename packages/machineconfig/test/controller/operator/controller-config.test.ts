/** The operator's ControllerConfig inputs (`src/controller/operator/controller-config.ts`): the osimageurl ConfigMap and when to wait for it. */
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '@keelson/api';
import { decideOSImageURLWait, parseOSImageURLConfigMap } from '../../../src/index.js';

const OS = `quay.io/test/rhcos@sha256:${'2'.repeat(64)}`;
const cm = (release: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'machine-config-osimageurl', namespace: 'openshift-machine-config-operator' },
  data: { baseOSContainerImage: OS, baseOSExtensionsContainerImage: '', releaseVersion: release },
});

describe('parseOSImageURLConfigMap', () => {
  it('reads the osimageurl ConfigMap of its own release only', () => {
    const cm = {
      metadata: { name: 'machine-config-osimageurl' },
      data: { baseOSContainerImage: 'os', baseOSExtensionsContainerImage: 'ext', releaseVersion: '4.1' },
    };
    expect(parseOSImageURLConfigMap(cm, '4.1')).toEqual({
      baseOSContainerImage: 'os',
      baseOSExtensionsContainerImage: 'ext',
      releaseVersion: '4.1',
    });
    expect(() => parseOSImageURLConfigMap(cm, '4.2')).toThrow(
      'refusing to read osImageURL version "4.1", operator version "4.2"',
    );
    expect(() => parseOSImageURLConfigMap(undefined, '4.2')).toThrow('configmap "machine-config-osimageurl" not found');
  });
});

describe('decideOSImageURLWait', () => {
  it('waits during an install or an upgrade to this release, reads the ConfigMap otherwise', () => {
    expect(decideOSImageURLWait(undefined, '4.99.0', undefined)).toBe(
      'waiting for configmap "machine-config-osimageurl" of release 4.99.0',
    );
    expect(decideOSImageURLWait(cm('4.98.0'), '4.99.0', '4.98.0')).toBe(
      'waiting for configmap "machine-config-osimageurl" of release 4.99.0 (it has release "4.98.0")',
    );
    expect(decideOSImageURLWait(cm('4.99.0'), '4.99.0', undefined)).toBeUndefined();
    expect(decideOSImageURLWait(undefined, '4.99.0', '4.99.0')).toBeUndefined();
    expect(decideOSImageURLWait(cm('4.98.0'), '4.99.0', '4.99.0')).toBeUndefined();
  });
});
