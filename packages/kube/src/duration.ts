/**
 * `@keelson/kube/duration`: Go's `time.ParseDuration` as a standalone subpath (no kube client loaded). The parser
 * lives in `@keelson/api` so that `@keelson/machineconfig` can use it without the client; this subpath keeps the
 * published entry point of earlier releases.
 */
export { DurationError, parseGoDuration } from '@keelson/api';
