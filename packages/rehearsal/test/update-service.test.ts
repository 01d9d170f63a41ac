/** The rehearsal's update service: real graph server and PromQL endpoint over loopback, risks evaluated by @keelson/update-graph. */
import { describe, expect, it } from 'vitest';
import { evaluatePromQL, PromQLParseError, type Series } from '../src/promql.js';
import { evaluateUpdates, REHEARSAL_RISK, startUpdateService } from '../src/update-service.js';

const series: Series[] = [
  { name: 'cluster_infrastructure_provider', labels: { type: 'None' }, value: 1 },
  { name: 'cluster_version', labels: { type: 'current', version: '4.18.7' }, value: 1 },
];

describe('evaluatePromQL', () => {
  it('evaluates group/or/vector/0* like Prometheus', () => {
    expect(evaluatePromQL(REHEARSAL_RISK.promql, series)).toEqual([{ labels: {}, value: 1 }]);
    expect(
      evaluatePromQL(
        'group(cluster_infrastructure_provider{_id="",type="AWS"}) or 0 * group(cluster_version{_id=""})',
        series,
      ),
    ).toEqual([{ labels: {}, value: 0 }]);
    expect(evaluatePromQL('group(cluster_infrastructure_provider{type=~"No.*"})', series)).toHaveLength(1);
    expect(evaluatePromQL('group(cluster_infrastructure_provider{type!~"No.*"}) or vector(0)', series)).toEqual([
      { labels: {}, value: 0 },
    ]);
    expect(evaluatePromQL('cluster_version{version!="4.18.8"}', series)[0]?.labels['__name__']).toBe('cluster_version');
  });
  it('refuses what it does not understand', () => {
    expect(() => evaluatePromQL('sum(rate(x[5m]))', series)).toThrow(PromQLParseError);
    expect(() => evaluatePromQL('group(x', series)).toThrow(/expected/);
  });
});

describe('startUpdateService', () => {
  it('offers B as recommended and C as conditional, not recommended while the risk matches', async () => {
    let platform = 'None';
    const svc = await startUpdateService({
      from: { version: '4.18.7', payload: '127.0.0.1:5000/ocp/release@sha256:' + 'a'.repeat(64) },
      to: { version: '4.18.8', payload: '127.0.0.1:5000/ocp/release@sha256:' + 'b'.repeat(64) },
      series: () => [
        { name: 'cluster_infrastructure_provider', labels: { type: platform }, value: 1 },
        series[1] as Series,
      ],
    });
    try {
      expect(svc.channel).toBe('stable-4.18');
      const u = await evaluateUpdates(svc.upstream, svc.channel, '4.18.7', svc.prometheus);
      expect(u.recommended).toEqual(['4.18.8']);
      expect(u.conditional).toHaveLength(1);
      expect(u.conditional[0]?.version).toBe('4.18.9');
      expect(u.conditional[0]?.recommended).toMatchObject({
        type: 'Recommended',
        status: 'False',
        reason: REHEARSAL_RISK.name,
      });
      expect(svc.promql.queries.some((q) => q.includes('cluster_infrastructure_provider'))).toBe(true);
      platform = 'AWS';
      const v = await evaluateUpdates(svc.upstream, svc.channel, '4.18.7', svc.prometheus);
      expect(v.conditional[0]?.recommended).toMatchObject({ status: 'True', reason: 'NotExposedToRisks' });
    } finally {
      await svc.close();
    }
  });
});
