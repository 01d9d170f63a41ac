/** The classic `Upgradeable` aggregation (cvo.md 5.4), shared with `keelson upgrade plan` via @keelson/update-graph. */
export { computeUpgradeable } from '@keelson/update-graph';
