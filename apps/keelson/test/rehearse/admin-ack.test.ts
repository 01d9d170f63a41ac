/**
 * `--fault admin-ack-required[=never]`: a minor update (4.18.7 -> 4.19.0) that A's admin-ack gate blocks. The pure
 * parts (fault parsing, the refusal's clock, the diagnosis, the up-front checks of the user's releases) and two whole
 * rehearsals as child processes: the rehearsal gives the ack as an admin would and the update completes; nobody gives
 * it and the update stalls on the CVO's refusal, with the `oc patch` to run.
 */
import { describe, expect, it } from 'vitest';
import type { ReleasePayload } from '@keelson/release-payload';
import {
  ADMIN_ACK_RELEASES,
  REHEARSAL_ADMIN_GATE,
  blockedOnAdminAck,
  checkAdminAckReleases,
  diagnoseAdminAcks,
  FaultSpecError,
  describeFaults,
  parseFaults,
  nextRefusedSince,
} from '@keelson/rehearsal';
import { rehearseWith } from './fault-helpers.js';

const PATCH = `oc -n openshift-config patch cm admin-acks --patch '{"data":{"${REHEARSAL_ADMIN_GATE}":"true"}}' --type=merge`;

const cvWith = (status: string, reason: string, message = ''): unknown => ({
  status: { conditions: [{ type: 'ReleaseAccepted', status, reason, message }] },
});
const REFUSED = cvWith(
  'False',
  'PreconditionChecks',
  'Preconditions failed for payload loaded version="4.19.0" image="x": Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired": text',
);

/** A payload as far as the checks read it: its version and its admin-gates ConfigMap. */
function payload(version: string, gates: Record<string, string> | undefined): ReleasePayload {
  const manifests =
    gates === undefined
      ? []
      : [
          {
            gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
            namespace: 'openshift-config-managed',
            name: 'admin-gates',
            object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'admin-gates' }, data: gates },
          },
        ];
  return { metadata: { version }, manifests } as unknown as ReleasePayload;
}

describe('admin-ack-required (pure)', () => {
  it('parses the fault, with =never, and refuses any other value', () => {
    expect(parseFaults(['admin-ack-required'], [], []).adminAck).toBe('give');
    const never = parseFaults(['admin-ack-required=never'], [], []);
    expect(never.adminAck).toBe('never');
    expect(describeFaults(never)).toEqual(['admin-ack-required=never']);
    expect(() => parseFaults(['admin-ack-required=later'], [], [])).toThrow(FaultSpecError);
    expect(parseFaults([], [], []).adminAck).toBeUndefined();
  });

  it('a refusal lasts through the retries (RetrievePayload in between) and ends when accepted', () => {
    expect(nextRefusedSince(undefined, REFUSED, 10)).toBe(10);
    expect(nextRefusedSince(10, cvWith('Unknown', 'RetrievePayload'), 20)).toBe(10);
    expect(nextRefusedSince(10, REFUSED, 30)).toBe(10);
    expect(nextRefusedSince(10, cvWith('True', 'PayloadLoaded'), 40)).toBeUndefined();
    expect(nextRefusedSince(10, cvWith('False', 'RetrievePayload'), 40)).toBeUndefined();
    expect(nextRefusedSince(undefined, cvWith('Unknown', 'RetrievePayload'), 50)).toBeUndefined();
  });

  it('the block is the CVO refusing on AdminAckRequired, not Upgradeable=False alone', () => {
    expect(blockedOnAdminAck(REFUSED)).toBe(true);
    expect(
      blockedOnAdminAck({
        status: { conditions: [{ type: 'Upgradeable', status: 'False', reason: 'AdminAckRequired', message: 'x' }] },
      }),
    ).toBe(false);
  });

  it('the diagnosis names each pending gate with the oc patch that gives it', () => {
    const facts = {
      clusterVersion: { status: { history: [{ state: 'Completed', version: '4.18.7' }] } },
      gates: ADMIN_ACK_RELEASES.adminGates,
      acks: {},
    };
    const [d] = diagnoseAdminAcks(facts);
    expect(d?.subject).toBe('configmap/openshift-config/admin-acks');
    expect(d?.findings[0]?.action).toContain(PATCH);
    expect(diagnoseAdminAcks({ ...facts, acks: { [REHEARSAL_ADMIN_GATE]: 'true' } })).toEqual([]);
    expect(diagnoseAdminAcks({ ...facts, gates: null })).toEqual([]);
  });

  it("refuses the user's releases up front when they show nothing: a z-stream, or no gate of A's minor", () => {
    const gates = { 'ack-4.18-kube-1.32-api-removals-in-4.19': 'text' };
    expect(() => {
      checkAdminAckReleases(payload('4.18.7', gates), payload('4.19.0', undefined));
    }).not.toThrow();
    expect(() => {
      checkAdminAckReleases(payload('4.18.7', gates), payload('4.18.8', undefined));
    }).toThrow(/4\.18\.7 -> 4\.18\.8 is not a minor update/);
    expect(() => {
      checkAdminAckReleases(payload('4.18.7', { 'ack-4.17-old-in-4.18': 'text' }), payload('4.19.0', undefined));
    }).toThrow(/ships no admin-ack gate for 4\.18/);
  });
});

describe('keelson rehearse --fault admin-ack-required', { timeout: 600_000 }, () => {
  it('the minor update is refused until the rehearsal, as the admin, gives the ack; then it completes (exit 0)', async () => {
    const { code, report } = await rehearseWith(['--fault', 'admin-ack-required']);
    expect(report.outcome, report.message).toBe('Completed');
    expect(code).toBe(0);
    expect([report.from, report.to]).toEqual(['4.18.7', '4.19.0']);
    const refused = report.injected.find((f) => f.fault === 'admin-ack-required');
    const acked = report.injected.find((f) => f.fault === 'admin-ack');
    expect(refused?.detail).toContain(`Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired"`);
    expect(acked?.detail).toBe(`acknowledged ${REHEARSAL_ADMIN_GATE} as an admin would: ${PATCH}`);
    expect(acked?.atMs ?? 0).toBeGreaterThanOrEqual(refused?.atMs ?? Number.POSITIVE_INFINITY);
  });

  it('=never: Stalled (exit 5) on ReleaseAccepted=False PreconditionChecks, the diagnosis giving the oc patch', async () => {
    // the install must finish within the phase timeout too: 120 s leaves room for a loaded CI machine (the refusal is
    // recognised once held for a quarter of it)
    const { code, report } = await rehearseWith(['--fault', 'admin-ack-required=never'], { timeoutSeconds: 120 });
    expect(report.outcome, report.message).toBe('Stalled');
    expect(code).toBe(5);
    // the precondition fails because of AdminAckRequired alone, or with other reasons (MultipleReasons) at that instant
    expect(report.message).toMatch(
      /^ClusterVersion ReleaseAccepted=False PreconditionChecks: Preconditions failed for payload loaded version="4\.19\.0" image="[^"]+": Precondition "ClusterVersionUpgradeable" failed because of "[A-Za-z]+": /,
    );
    expect(report.message).toMatch(/AdminAckRequired|Kubernetes 1\.32 and therefore OpenShift 4\.19/);
    expect(report.injected.some((f) => f.fault === 'admin-ack')).toBe(false);
    const [first] = report.diagnosis;
    expect(first?.subject).toBe('configmap/openshift-config/admin-acks');
    expect(first?.findings[0]?.action).toContain(PATCH);
    // the CVO never took B: no operator is expected at 4.19.0, so none is listed for its version
    expect(report.diagnosis.some((d) => d.summary.includes('not 4.19.0'))).toBe(false);
  });
});
