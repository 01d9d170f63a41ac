/**
 * `@keelson/rehearsal/testing`: test your own operator under the real Keelson CVO (and, through `rehearse()`, the real
 * MCO) in CI. An embedded API server with the OpenShift CRDs, fake operators for every ClusterOperator but yours, the
 * real CVO applying a release that ships your operator, and one `waitFor`.
 */
export { waitFor, WaitTimeoutError, type WaitOptions } from './wait.js';
export { startOpenShiftSandbox, CLUSTER_ID, type OpenShiftSandbox, type OpenShiftSandboxOptions } from './sandbox.js';
export { startFakeOperators, type FakeOperatorsOptions } from './operators.js';
export { startCvo, type TestCvoOptions } from './cvo.js';
export {
  TEST_RELEASE_COMPONENTS,
  testComponentManifests,
  testComponentNamespace,
  writeTestRelease,
  type TestReleaseOptions,
} from '../release/test-release.js';
