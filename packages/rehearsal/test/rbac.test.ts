/**
 * The rehearsal under RBAC: every component runs as the ServiceAccount of its release workload with only the RBAC the
 * release ships (the API server authenticates their tokens and authorizes every request), and the update completes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFaults } from '../src/faults.js';
import { rehearse } from '../src/run.js';
import type { TimelineEvent } from '../src/timeline.js';

const MCO = 'system:serviceaccount:openshift-machine-config-operator';

describe('keelson rehearse under RBAC', { timeout: 400_000 }, () => {
  it('runs the CVO, the MCO components, the daemons and the simulator as their own ServiceAccounts, and completes', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'rehearse-rbac-'));
    const refused: string[] = [];
    try {
      const { report, events } = await rehearse({
        masters: 1,
        workers: 1,
        pools: {},
        timeScale: 120,
        faults: parseFaults([], [], []),
        timeoutSeconds: 300,
        workDir,
        onLog: (component, line) => {
          if (line.includes('"status":403') || line.includes('"status":401'))
            refused.push(`${component} ${line.slice(0, 400)}`);
        },
      });
      expect(report.outcome, `${report.message}\n${refused.join('\n')}`).toBe('Completed');
      const runsAs = new Map(
        events.flatMap((e: TimelineEvent) =>
          e.type === 'component' && e.state === 'started' ? [[e.component, e.detail ?? '']] : [],
        ),
      );
      expect(runsAs.get('cluster-version-operator')).toBe('as system:serviceaccount:openshift-cluster-version:default');
      expect(runsAs.get('machine-config-operator')).toBe(`as ${MCO}:machine-config-operator`);
      expect(runsAs.get('machine-config-controller')).toBe(`as ${MCO}:machine-config-controller`);
      expect(runsAs.get('machine-config-server (bootstrap)')).toBe(`as ${MCO}:machine-config-server`);
      expect(runsAs.get('machine-config-server')).toBe(
        `as ${MCO}:machine-config-server; DaemonSet machine-config-server deployed by the operator`,
      );
      // the MCO's operands run once its operator has deployed them (the release ships none): the controller and the
      // daemons after the operator, the in-cluster server last, taking over from the bootstrap server
      const order = events.flatMap((e: TimelineEvent) => (e.type === 'component' ? [`${e.component} ${e.state}`] : []));
      const at = (x: string): number => order.indexOf(x);
      expect(at('machine-config-operator started')).toBeGreaterThanOrEqual(0);
      expect(at('machine-config-controller started')).toBeGreaterThan(at('machine-config-operator started'));
      expect(at('virtual nodes started')).toBeGreaterThan(at('machine-config-operator started'));
      expect(at('machine-config-server started')).toBeGreaterThan(at('virtual nodes started'));
      expect(at('machine-config-server (bootstrap) stopped')).toBeGreaterThan(at('machine-config-server started'));
      expect(runsAs.get('virtual nodes')).toBe(
        `machine-config-daemon as ${MCO}:machine-config-daemon; kubelets as the admin`,
      );
      expect(runsAs.get('cluster-operator simulator')).toBe(
        'as system:serviceaccount:keelson-operator-simulator:operator-simulator',
      );
      // the kubeconfig the server got carries its ServiceAccount token, not the admin's
      const kc = await readFile(join(workDir, 'kubeconfig-machine-config-server'), 'utf8');
      const token = (JSON.parse(kc) as { users: { user: { token: string } }[] }).users[0]?.user.token ?? '';
      expect(JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as unknown).toMatchObject({
        sub: `${MCO}:machine-config-server`,
      });
      // components start once their RBAC exists: no request of theirs is ever refused
      expect(refused).toEqual([]);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
