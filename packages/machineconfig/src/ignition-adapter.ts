/**
 * Adapter between the spec module's `parseAndConvertConfig` (MCO ParseAndConvertConfig: parse 2.2/3.0–3.5,
 * validate, convert to 3.5) and the render/daemon code: the MCO's Report text with line/column positions, and the
 * Go-typed shape (unknown keys dropped; empty lists kept or dropped as the caller needs).
 */
import { goJsonMarshal } from '@keelson/api';
import { IgnitionError, parseAndConvertConfig } from '@keelson/ignition';
import { IGNITION_MAX_DEPTH as MAX_DEPTH, tooDeep } from '@keelson/ignition';
import { normalizeIgnitionV35, toGoStructV35 } from './gojson.js';
import { indexJsonPositions } from './json-index.js';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);

/** The MCO's own list of accepted spec versions, as printed in its errors. */
export const MCO_SUPPORTED_SPECS = '2.2,3.0,3.1,3.2,3.3,3.4,3.5';

/** Raised for Ignition configs the MCO cannot parse; `message` is the MCO's text. */
export class MachineConfigIgnitionError extends Error {
  /** Stable error code. */
  readonly code = 'MC_IGNITION_PARSE';
  constructor(
    message: string,
    /** JSON path inside the Ignition config, when known. */
    readonly path: (string | number)[] = [],
  ) {
    super(message);
    this.name = 'MachineConfigIgnitionError';
  }
}

interface Entry {
  path: (string | number)[];
  message: string;
  kind: 'error' | 'warning' | 'info';
}

/**
 * Report entries printed in an error message at most; the rest are counted in one closing line. Upstream prints
 * every entry of Ignition's Report, but a hostile config can hold hundreds of thousands of errors and the message
 * ends in a MachineConfigPool condition and an Event (both bounded by the API server), so the first ones are kept.
 */
export const MAX_REPORT_ENTRIES = 100;

function reportString(raw: string | undefined, entries: Entry[]): string {
  const shown = entries.slice(0, MAX_REPORT_ENTRIES);
  const index = raw === undefined ? undefined : indexJsonPositions(raw);
  const lines = shown.map((e) => {
    const ctx = ['$', ...e.path].join('.');
    const pos = index?.locate(e.path);
    return pos
      ? `${e.kind} at ${ctx}, line ${pos.line} col ${pos.col}: ${e.message}\n`
      : `${e.kind} at ${ctx}: ${e.message}\n`;
  });
  const more = entries.length - shown.length;
  if (more > 0) lines.push(`... and ${more} more report entries not shown\n`);
  return lines.join('');
}

// ------------------------------------------------------------------------------------------------------------

/** Go json.Marshal of a generic object (map keys sorted), used as the RawExtension bytes of YAML-given configs. */
export function goMarshalSorted(v: unknown): string {
  return goJsonMarshal(v);
}

/**
 * Parses the raw Ignition of a MachineConfig into the 3.5 Go-typed shape (unknown keys dropped), up-translating
 * 3.0–3.4 and converting 2.2 the MCO's way (the spec module's `parseAndConvertConfig`: full upstream validation,
 * ign-converter semantics). Error texts are the MCO's (IgnParseWrapper).
 * @param opts.keepEmptyLists keep present-but-empty lists (the daemon compares with reflect.DeepEqual).
 * @throws MachineConfigIgnitionError
 */
export function parseMachineConfigIgnition(config: Obj | string, opts: { keepEmptyLists?: boolean } = {}): Obj {
  if (typeof config !== 'string' && !isObj(config)) {
    throw new MachineConfigIgnitionError(
      'parsing Ignition config spec v3 failed with error: config is not valid\nReport: error: not a JSON object\n',
    );
  }
  const deep = typeof config === 'string' ? null : tooDeep(config, MAX_DEPTH);
  if (deep) {
    // before goMarshalSorted (recursive): the same limit and text as a raw config of that depth gets from the parser
    throw new MachineConfigIgnitionError(
      `parsing Ignition config spec v3 failed with error: config is not valid: the document nests deeper than ${MAX_DEPTH} levels`,
      deep.slice(0, 8),
    );
  }
  const raw = typeof config === 'string' ? config : goMarshalSorted(config);
  let v3: unknown;
  try {
    v3 = parseAndConvertConfig(raw);
  } catch (e) {
    if (e instanceof IgnitionError) {
      const m = /^(parsing Ignition config spec v[23] failed with error: )config is not valid/.exec(e.message);
      if (m && e.report.length > 0) {
        // the MCO prints Ignition's Report: one "<kind> at <path>, line L col C: <message>" line per entry
        const entries: Entry[] = e.report.map((r) => ({ path: r.path, message: r.message, kind: r.kind }));
        const firstError = e.report.find((r) => r.kind === 'error');
        throw new MachineConfigIgnitionError(
          `${m[1]}config is not valid\nReport: ${reportString(raw, entries)}`,
          e.path.length > 0 ? e.path : (firstError?.path ?? []),
        );
      }
      throw new MachineConfigIgnitionError(e.message, e.path);
    }
    throw e;
  }
  return opts.keepEmptyLists ? toGoStructV35(v3) : normalizeIgnitionV35(v3);
}
