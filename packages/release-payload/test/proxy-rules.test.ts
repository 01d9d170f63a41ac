/** Proxy choice as Go's httpproxy does it (noProxy domains, ports, IPs, CIDRs; loopback never proxied). */
import { describe, expect, it } from 'vitest';
import { bypassesProxy, proxyFor, pullSources, mirrorRulesFromCluster } from '../src/index.js';

describe('proxyFor / bypassesProxy', () => {
  const settings = { httpProxy: 'http://p:3128', httpsProxy: 'https://user:pw@sp:3129', noProxy: '' };
  it('picks the proxy by scheme and never proxies loopback', () => {
    expect(proxyFor(new URL('https://quay.io/v2/'), settings)?.host).toBe('sp:3129');
    expect(proxyFor(new URL('http://quay.io/v2/'), settings)?.host).toBe('p:3128');
    expect(proxyFor(new URL('https://localhost:5000/v2/'), settings)).toBeUndefined();
    expect(proxyFor(new URL('https://127.0.0.5:5000/v2/'), settings)).toBeUndefined();
    expect(proxyFor(new URL('https://[::1]:5000/v2/'), settings)).toBeUndefined();
    expect(proxyFor(new URL('https://quay.io/'), { httpProxy: 'http://p:1' })).toBeUndefined();
  });
  it('matches noProxy entries as Go does', () => {
    expect(bypassesProxy('quay.io', '443', 'quay.io')).toBe(true);
    expect(bypassesProxy('cdn.quay.io', '443', 'quay.io')).toBe(true);
    expect(bypassesProxy('quay.io', '443', '.quay.io')).toBe(false);
    expect(bypassesProxy('cdn.quay.io', '443', '*.quay.io')).toBe(true);
    expect(bypassesProxy('xquay.io', '443', 'quay.io')).toBe(false);
    expect(bypassesProxy('quay.io', '443', 'quay.io:5000')).toBe(false);
    expect(bypassesProxy('quay.io', '5000', 'quay.io:5000')).toBe(true);
    expect(bypassesProxy('10.1.2.3', '443', '10.0.0.0/8')).toBe(true);
    expect(bypassesProxy('11.1.2.3', '443', '10.0.0.0/8')).toBe(false);
    expect(bypassesProxy('fd00::5', '443', 'fd00::/16')).toBe(true);
    expect(bypassesProxy('192.168.1.1', '443', ' 192.168.1.1 ')).toBe(true);
    expect(bypassesProxy('anything', '443', '*')).toBe(true);
  });
});

describe('pullSources', () => {
  const d = `@sha256:${'a'.repeat(64)}`;
  it('rewrites by the longest matching source, wildcard hosts, and keeps the source last unless blocked', () => {
    const rules = mirrorRulesFromCluster({
      idms: [
        {
          metadata: { name: 'b' },
          spec: {
            imageDigestMirrors: [
              { source: 'quay.io/openshift-release-dev', mirrors: ['m.local/ocp'] },
              {
                source: 'quay.io/openshift-release-dev/ocp-release',
                mirrors: ['m.local/release'],
                mirrorSourcePolicy: 'NeverContactSource',
              },
              { source: '*.example.com', mirrors: ['m.local/ex'] },
            ],
          },
        },
      ],
    });
    expect(pullSources(`quay.io/openshift-release-dev/ocp-release${d}`, rules)).toEqual([
      { reference: `m.local/release${d}`, mirror: true },
    ]);
    expect(pullSources(`quay.io/openshift-release-dev/ocp-v4.0-art-dev${d}`, rules)).toEqual([
      { reference: `m.local/ocp/ocp-v4.0-art-dev${d}`, mirror: true },
      { reference: `quay.io/openshift-release-dev/ocp-v4.0-art-dev${d}`, mirror: false },
    ]);
    expect(pullSources(`reg.example.com/a/b${d}`, rules)[0]?.reference).toBe(`m.local/ex/a/b${d}`);
    expect(pullSources('quay.io/openshift-release-dev/ocp-release:4.20.1', rules)).toEqual([]);
    expect(pullSources(`quay.io/openshift-release-devx/r${d}`, rules)).toEqual([
      { reference: `quay.io/openshift-release-devx/r${d}`, mirror: false },
    ]);
  });
});
