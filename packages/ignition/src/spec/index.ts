/**
 * Ignition spec half of @keelson/ignition: types, parse, validate, merge, translate, and the MCO's
 * Ignition converter helpers.
 */
export * from './types.js';
export {
  MESSAGES,
  IgnitionError,
  IgnitionParseError,
  IgnitionTranslateError,
  IgnitionMergeError,
  formatPath,
  MAX_DEPTH as IGNITION_MAX_DEPTH,
  tooDeep,
  type IgnitionErrorCode,
  type UpstreamErrorName,
} from './errors.js';
export { merge, mergeOwned, mergeWithTranscript, type MergeMapping, type MergeResult } from './merge.js';
export { parseConfig, type ParseOptions, type ParsedConfig } from './parse.js';
export { validate, type ValidateOptions, type ValidationResult } from './validate.js';
export { translate, type TranslateOptions } from './translate.js';
export { dedupeV2 } from './translate-v22.js';
export {
  MCO_IGNITION_VERSION,
  MCO_SUPPORTED_MINOR_VERSIONS,
  IgnitionConverterError,
  getSupportedMinorVersions,
  getSupportedMinorVersion,
  isConversionSupported,
  convertIgnition,
  parseAndConvertConfig,
} from './converter.js';
export { getSchema } from './schema.js';
