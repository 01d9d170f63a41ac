/**
 * `keelson mcp describe POOL`: a MachineConfigPool as `oc describe mcp POOL` prints it. oc describes a custom
 * resource with kubectl's generic describer (k8s.io/kubectl pkg/describe/describe.go, GenericDescriberFor and
 * printUnstructuredContent): Name, Namespace, Labels, Annotations, then every other field with its camelCase name as
 * words, maps indented, list items one after the other, columns aligned per block (tabwriter, padding 2), and the
 * object's Events last.
 */
import { humanAge } from './mcp.js';

/** An Event as the describer reads it. */
export interface EventLike {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  source?: { component?: string };
  reportingComponent?: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
}

const ACRONYMS = new Set(['API', 'URL', 'UID', 'OSB', 'GUID', 'ID', 'IP', 'CA', 'OS']);

/** kubectl's smartLabelFor: `machineConfigSelector` → `Machine Config Selector`, `apiVersion` → `API Version`. */
export function smartLabel(field: string): string {
  // keys that are not Go field names (label keys, annotations) are printed as they are
  if (/[^A-Za-z0-9]/.test(field)) return field;
  const words = field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/);
  return words
    .filter((w) => w !== '')
    .map((w) => (ACRONYMS.has(w.toUpperCase()) ? w.toUpperCase() : `${w.charAt(0).toUpperCase()}${w.slice(1)}`))
    .join(' ');
}

type Line = { indent: number; cells: string[] };

function content(
  lines: Line[],
  level: number,
  value: Readonly<Record<string, unknown>>,
  path: string,
  skip: ReadonlySet<string>,
): void {
  for (const key of Object.keys(value).sort()) {
    const p = `${path}.${key}`;
    if (skip.has(p)) continue;
    const v = value[key];
    if (Array.isArray(v)) {
      lines.push({ indent: level, cells: [`${smartLabel(key)}:`] });
      for (const item of v) {
        if (item !== null && typeof item === 'object' && !Array.isArray(item))
          content(lines, level + 1, item as Record<string, unknown>, p, skip);
        else lines.push({ indent: level + 1, cells: [String(item)] });
      }
    } else if (v !== null && typeof v === 'object') {
      lines.push({ indent: level, cells: [`${smartLabel(key)}:`] });
      content(lines, level + 1, v as Record<string, unknown>, p, skip);
    } else
      lines.push({
        indent: level,
        cells: [`${smartLabel(key)}:`, v === null ? '<nil>' : typeof v === 'string' ? v : JSON.stringify(v)],
      });
  }
}

/** tabwriter (padding 2): consecutive lines with cells share column widths; a line with one cell ends the block. */
function align(lines: readonly Line[]): string[] {
  const out: string[] = [];
  let block: Line[] = [];
  const flush = (): void => {
    const width = Math.max(0, ...block.map((l) => l.indent * 2 + (l.cells[0] ?? '').length));
    for (const l of block)
      out.push(
        `${' '.repeat(l.indent * 2)}${(l.cells[0] ?? '').padEnd(width - l.indent * 2 + 2)}${l.cells[1] ?? ''}`.trimEnd(),
      );
    block = [];
  };
  for (const l of lines) {
    if (l.cells.length > 1) block.push(l);
    else {
      flush();
      out.push(`${' '.repeat(l.indent * 2)}${l.cells[0] ?? ''}`);
    }
  }
  flush();
  return out;
}

function kv(title: string, m: Readonly<Record<string, string>> | undefined): Line[] {
  const entries = Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  if (entries.length === 0) return [{ indent: 0, cells: [`${title}:`, '<none>'] }];
  return entries.map(([k, v], i) => ({ indent: 0, cells: [i === 0 ? `${title}:` : '', `${k}=${v}`] }));
}

function eventsBlock(events: readonly EventLike[], now: number): string[] {
  if (events.length === 0) return ['Events:  <none>'];
  const rows = [
    ['Type', 'Reason', 'Age', 'From', 'Message'],
    ['----', '------', '----', '----', '-------'],
    ...[...events]
      .sort((a, b) => (a.lastTimestamp ?? a.eventTime ?? '').localeCompare(b.lastTimestamp ?? b.eventTime ?? ''))
      .map((e) => {
        const last = Date.parse(e.lastTimestamp ?? e.eventTime ?? '');
        const first = Date.parse(e.firstTimestamp ?? e.eventTime ?? '');
        const age = Number.isNaN(last)
          ? '<unknown>'
          : (e.count ?? 1) > 1 && !Number.isNaN(first)
            ? `${humanAge(now - last)} (x${String(e.count)} over ${humanAge(now - first)})`
            : humanAge(now - last);
        return [
          e.type ?? '',
          e.reason ?? '',
          age,
          e.source?.component ?? e.reportingComponent ?? '',
          (e.message ?? '').trim(),
        ];
      }),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return [
    'Events:',
    ...rows.map((r) =>
      `  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 2))).join('')}`.trimEnd(),
    ),
  ];
}

/** The `oc describe` text of an object and its Events (pure; `now` in ms for the Age column). */
export function describeObject(
  obj: Readonly<Record<string, unknown>>,
  events: readonly EventLike[],
  now: number,
): string {
  const meta = (obj['metadata'] ?? {}) as {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  const lines: Line[] = [
    { indent: 0, cells: ['Name:', meta.name ?? ''] },
    { indent: 0, cells: ['Namespace:', meta.namespace ?? ''] },
    ...kv('Labels', meta.labels),
    ...kv('Annotations', meta.annotations),
  ];
  content(
    lines,
    0,
    obj,
    '',
    new Set([
      '.metadata.name',
      '.metadata.namespace',
      '.metadata.labels',
      '.metadata.annotations',
      '.metadata.managedFields',
    ]),
  );
  return `${[...align(lines), ...eventsBlock(events, now)].join('\n')}\n`;
}
