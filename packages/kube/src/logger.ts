/** Log severity, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A structured logger that writes one JSON object per line. */
export interface Logger {
  /** Log at debug level. */
  debug(msg: string, fields?: Record<string, unknown>): void;
  /** Log at info level. */
  info(msg: string, fields?: Record<string, unknown>): void;
  /** Log at warn level. */
  warn(msg: string, fields?: Record<string, unknown>): void;
  /** Log at error level. */
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every line. */
  child(fields: Record<string, unknown>): Logger;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Minimum level written (default `info`, or `KEELSON_LOG_LEVEL` when set to a valid level). */
  level?: LogLevel;
  /** Where lines go (default `process.stderr`). */
  stream?: { write(line: string): unknown };
  /** Fields added to every line. */
  fields?: Record<string, unknown>;
  /** Clock used for `ts` (default `() => new Date()`). */
  now?: () => Date;
}

/** Render a thrown value as plain JSON-able data. */
export function serializeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const out: Record<string, unknown> = { name: err.name, message: err.message };
    const code = (err as { code?: unknown }).code;
    if (code !== undefined) out['code'] = code;
    if (err.cause !== undefined) out['cause'] = serializeError(err.cause);
    return out;
  }
  return { message: String(err) };
}

function safeStringify(value: Record<string, unknown>): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Error) return serializeError(v);
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[Circular]';
      seen.add(v);
    }
    return v;
  });
}

/** `fields` with every Error value replaced by {@link serializeError} (an Error's own properties do not JSON-serialise). */
export function serializeErrorFields(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (fields === undefined) return undefined;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(fields)) {
    if (!(v instanceof Error)) continue;
    out ??= { ...fields };
    out[k] = serializeError(v);
  }
  return out ?? fields;
}

/**
 * Wraps a logger supplied from outside (one that may `JSON.stringify` its fields as they are, and whose `child` may
 * drop fields) so that Error values are logged as `{name, message, code, cause}` under klog's `err` key
 * ({@link klogFields}) and child fields are kept.
 */
export function errorSafeLogger(inner: Logger, base: Record<string, unknown> = {}): Logger {
  const f = (fields?: Record<string, unknown>): Record<string, unknown> => ({
    ...base,
    ...serializeErrorFields(klogFields(fields)),
  });
  return {
    debug: (m, x) => {
      inner.debug(m, f(x));
    },
    info: (m, x) => {
      inner.info(m, f(x));
    },
    warn: (m, x) => {
      inner.warn(m, f(x));
    },
    error: (m, x) => {
      inner.error(m, f(x));
    },
    child: (x) => errorSafeLogger(inner, f(x)),
  };
}

/** No-op logger, handy as a default. */
export const nullLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return nullLogger;
  },
};

/**
 * The one log style of every Keelson process, in the spirit of klog's structured logs (`klog.InfoS` / `ErrorS`) and
 * logr's JSON sink: one JSON object per line, `{"ts":…,"level":…,"msg":…,"component":…,...key/values}`. The error of
 * a line is under `err`, as klog's `ErrorS(err, msg)` writes it: a field given as `error` is written as `err` (when
 * there is no `err`), an Error value as `{name, message, code, cause}`.
 */
export function klogFields(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (fields === undefined || !('error' in fields) || 'err' in fields) return fields;
  const { error, ...rest } = fields;
  return { ...rest, err: error };
}

/**
 * Create a JSON-line logger: each call writes `{"ts":…,"level":…,"msg":…,...fields}\n` (the style of
 * {@link klogFields}: the error under `err`). Errors inside fields are serialized (name, message, code, cause);
 * circular values become `"[Circular]"`.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const envLevel = process.env['KEELSON_LOG_LEVEL'];
  const level: LogLevel =
    options.level ?? (envLevel !== undefined && envLevel in LEVELS ? (envLevel as LogLevel) : 'info');
  const min = LEVELS[level];
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? (() => new Date());
  const make = (base: Record<string, unknown>): Logger => {
    const write = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
      if (LEVELS[lvl] < min) return;
      const rec: Record<string, unknown> = { ts: now().toISOString(), level: lvl, msg, ...base, ...klogFields(fields) };
      stream.write(safeStringify(rec) + '\n');
    };
    return {
      debug: (m, f) => {
        write('debug', m, f);
      },
      info: (m, f) => {
        write('info', m, f);
      },
      warn: (m, f) => {
        write('warn', m, f);
      },
      error: (m, f) => {
        write('error', m, f);
      },
      child: (f) => make({ ...base, ...f }),
    };
  };
  return make({ ...options.fields });
}
