/** A Kubernetes group/version/kind triple. `group` is `''` for the core API group. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * One manifest to apply, as the CVO's `payload.Task` sees it: the manifest's original file name and
 * identity, plus its 1-based position (`index`) among the `total` manifests of the payload.
 * `data` may carry the caller's own object (for example the parsed manifest) and is never read here.
 */
export interface Task<T = unknown> {
  /** Base name of the file the manifest came from (`OriginalFilename`); may be `''`. */
  readonly filename: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** `metadata.namespace`, `''` for cluster-scoped objects. */
  readonly namespace: string;
  /** `metadata.name`. */
  readonly name: string;
  /** 1-based position in the payload (0 when unknown). */
  readonly index: number;
  /** Number of manifests in the payload (0 when unknown). */
  readonly total: number;
  /** Caller data carried along unchanged. */
  readonly data?: T;
}

/** Fields accepted by {@link createTask}; anything omitted defaults to `''` / `0`. */
export interface TaskInit<T = unknown> {
  filename?: string;
  group?: string;
  version?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  index?: number;
  total?: number;
  data?: T;
}

/** Builds a frozen {@link Task}, defaulting missing string fields to `''` and numbers to `0`. */
export function createTask<T = unknown>(init: TaskInit<T>): Task<T> {
  const task: {
    -readonly [K in keyof Task<T>]: Task<T>[K];
  } = {
    filename: init.filename ?? '',
    group: init.group ?? '',
    version: init.version ?? '',
    kind: init.kind ?? '',
    namespace: init.namespace ?? '',
    name: init.name ?? '',
    index: init.index ?? 0,
    total: init.total ?? 0,
  };
  if (init.data !== undefined) task.data = init.data;
  return Object.freeze(task);
}

/** Go's `schema.GroupVersionKind.String()`: `group/version, Kind=kind`. */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Go's `strconv.Quote` for the characters that can occur in Kubernetes names and file names. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const simple = SIMPLE_ESCAPES[ch];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x20 || cp === 0x7f) {
      out += `\\x${cp.toString(16).padStart(2, '0')}`;
    } else if ((cp >= 0x80 && cp < 0xa0) || cp === 0xad) {
      out += `\\u${cp.toString(16).padStart(4, '0')}`;
    } else {
      out += ch;
    }
  }
  return out + '"';
}

/**
 * Upstream's resource id of a task's manifest: `kind "name"` or `kind "namespace/name"` (kind lower
 * case; the file name stands in when the object has no name).
 */
export function taskResourceId(task: Task): string {
  const name = task.name.length > 0 ? task.name : task.filename;
  const kind = task.kind.toLowerCase();
  if (task.namespace.length === 0) return `${kind} ${goQuote(name)}`;
  return `${kind} "${task.namespace}/${name}"`;
}

/** Go's `Task.String()`: `kind "namespace/name" (index of total)`. */
export function taskString(task: Task): string {
  return `${taskResourceId(task)} (${task.index} of ${task.total})`;
}

/** `SplitOnJobs`: true for a `batch/v1 Job`, which may not be reordered or parallelised across. */
export function splitOnJobs(task: Task): boolean {
  return task.group === 'batch' && task.version === 'v1' && task.kind === 'Job';
}
