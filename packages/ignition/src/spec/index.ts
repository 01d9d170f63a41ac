/**
 * Ignition spec half of @keelson/ignition: types, parse, validate, merge, translate.
 */
export * from './types.js';
export {
  MESSAGES,
  IgnitionError,
  IgnitionParseError,
  IgnitionTranslateError,
  IgnitionMergeError,
  formatPath,
  type IgnitionErrorCode,
  type UpstreamErrorName,
} from './errors.js';
export { merge, mergeWithTranscript, type MergeMapping, type MergeResult } from './merge.js';
