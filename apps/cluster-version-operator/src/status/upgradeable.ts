/** The classic `Upgradeable` aggregation (upstream pkg/cvo/upgradeable.go), shared with `keelson upgrade plan` via @keelson/update-graph. */
export { computeUpgradeable } from '@keelson/update-graph';
