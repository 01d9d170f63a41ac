/**
 * The HTML report rendered by Debian's chromium (real headless browser, screenshot), then the screenshot's pixels
 * checked: the chart's run-level and reboot colours are on the page, so the timeline is drawn and not empty.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtmlReport } from '../../src/rehearse/html.js';
import { computeReport, type TimelineEvent } from '@keelson/rehearsal';
import { API, RUN_LEVELS, sampleTimeline } from './timeline-fixture.js';

let work = '';
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rehearse-html-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Decodes an 8-bit, non-interlaced RGB/RGBA PNG into RGBA rows (enough for Chromium's screenshots). */
function decodePng(buf: Buffer): {
  width: number;
  height: number;
  pixel: (x: number, y: number) => [number, number, number];
} {
  expect(buf.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  let off = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect(data[8]).toBe(8);
      colorType = data[9] ?? 0;
      expect(data[12]).toBe(0);
    } else if (type === 'IDAT') idat.push(data);
    off += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)] ?? 0;
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i] ?? 0;
      const a = i >= bpp ? (out[y * stride + i - bpp] ?? 0) : 0;
      const b = y > 0 ? (out[(y - 1) * stride + i] ?? 0) : 0;
      const c = i >= bpp && y > 0 ? (out[(y - 1) * stride + i - bpp] ?? 0) : 0;
      let v = x;
      if (filter === 1) v = x + a;
      else if (filter === 2) v = x + b;
      else if (filter === 3) v = x + Math.floor((a + b) / 2);
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
      }
      out[y * stride + i] = v & 0xff;
    }
  }
  return {
    width,
    height,
    pixel: (x, y) => [
      out[y * stride + x * bpp] ?? 0,
      out[y * stride + x * bpp + 1] ?? 0,
      out[y * stride + x * bpp + 2] ?? 0,
    ],
  };
}

function countColor(img: ReturnType<typeof decodePng>, rgb: [number, number, number]): number {
  let n = 0;
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const [r, g, b] = img.pixel(x, y);
      if (Math.abs(r - rgb[0]) < 8 && Math.abs(g - rgb[1]) < 8 && Math.abs(b - rgb[2]) < 8) n++;
    }
  return n;
}

describe('HTML report', () => {
  const report = computeReport(sampleTimeline(), {
    from: '4.18.7',
    to: '4.18.8',
    outcome: 'Completed',
    message: 'history[0] 4.18.8 Completed',
    timeScale: 60,
    api: API,
    runLevels: RUN_LEVELS,
    faults: [],
  });
  const html = renderHtmlReport(report, sampleTimeline());

  it('is self-contained: no scripts, no external resources, escaped text', () => {
    expect(html).not.toMatch(/<script|src=|href=|@import|url\(/i);
    expect(html).toContain('<svg');
    expect(html).toContain('worker-0 (worker)');
    expect(html).toContain('run level 12');
    const hostile = renderHtmlReport({ ...report, message: '<img src=x onerror=alert(1)>' }, sampleTimeline());
    expect(hostile).not.toContain('<img');
  });

  it('draws a non-empty timeline chart in headless chromium', { timeout: 90_000 }, async () => {
    const file = join(work, 'report.html');
    const png = join(work, 'shot.png');
    await writeFile(file, html);
    const args = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${join(work, 'profile')}`,
      '--hide-scrollbars',
      '--window-size=1200,700',
      `--screenshot=${png}`,
      `file://${file}`,
    ];
    await new Promise<void>((resolve, reject) => {
      execFile('chromium', args, { timeout: 80_000 }, (err, _out, stderr) => {
        if (err)
          reject(
            new Error(
              `chromium failed (install Debian's chromium: apt-get install chromium): ${err.message}\n${stderr}`,
            ),
          );
        else resolve();
      });
    });
    const img = decodePng(await readFile(png));
    expect(img.width).toBe(1200);
    expect(countColor(img, [0x7b, 0x61, 0xff])).toBeGreaterThan(500); // run-level bars
    expect(countColor(img, [0xd0, 0x02, 0x1b])).toBeGreaterThan(100); // node reboots
    expect(countColor(img, [0xf5, 0xa6, 0x23])).toBeGreaterThan(100); // node drains
  });
});

/** Runs Debian's chromium headless on a file: a screenshot, or the DOM as rendered. */
function chromium(
  work: string,
  file: string,
  mode: { screenshot: string } | 'dump-dom',
  height = 700,
): Promise<string> {
  const out = mode === 'dump-dom' ? ['--dump-dom'] : [`--screenshot=${mode.screenshot}`];
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${join(work, 'profile')}`,
    '--hide-scrollbars',
    `--window-size=1200,${height}`,
    ...out,
    `file://${file}`,
  ];
  return new Promise((resolve, reject) => {
    execFile('chromium', args, { timeout: 80_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err)
        reject(
          new Error(`chromium failed (install Debian's chromium: apt-get install chromium): ${err.message}\n${stderr}`),
        );
      else resolve(stdout);
    });
  });
}

describe('HTML report of a failed run (headless chromium)', () => {
  const cv = (t: number, message: string): TimelineEvent => ({
    t,
    type: 'condition',
    object: 'clusterversion/version',
    condition: { type: 'Progressing', status: 'True', message },
  });
  const events = sampleTimeline();
  events.splice(
    events.findIndex((e) => e.t > 1020),
    0,
    cv(1020, 'Working towards 4.18.8: 0 of 100 done (0% complete), waiting on etcd'),
  );
  events.splice(
    events.findIndex((e) => e.t > 1210),
    0,
    cv(1210, 'Working towards 4.18.8: 60 of 100 done (60% complete), waiting on machine-config'),
  );
  const diagnosis = [
    {
      subject: 'machineconfigpool/worker',
      summary: 'pool worker targets rendered-worker-b: 0/2 nodes updated',
      findings: [
        {
          message: 'node worker-0 cannot be drained: PodDisruptionBudget app/critical-app allows 0 disruptions',
          action: 'relax or delete the PodDisruptionBudget',
        },
      ],
    },
  ];
  const report = computeReport(events, {
    from: '4.18.7',
    to: '4.18.8',
    outcome: 'Stalled',
    message: 'drain blocked',
    timeScale: 60,
    api: API,
    runLevels: RUN_LEVELS,
    faults: ['pdb-blocks-drain'],
    diagnosis,
  });
  const html = renderHtmlReport(report, events);

  it(
    'shows the diagnosis box and the waits (pixels), the operators by name and what to do (rendered DOM)',
    { timeout: 120_000 },
    async () => {
      const file = join(work, 'failed.html');
      const png = join(work, 'failed.png');
      await writeFile(file, html);
      await chromium(work, file, { screenshot: png }, 1100);
      const img = decodePng(await readFile(png));
      expect(countColor(img, [0xff, 0xf5, 0xf5])).toBeGreaterThan(20_000); // the diagnosis box
      expect(countColor(img, [0xff, 0x8f, 0x00])).toBeGreaterThan(300); // the CVO's waits
      expect(countColor(img, [0x2e, 0x7d, 0x32])).toBeGreaterThan(50); // operators at the target
      const dom = await chromium(work, file, 'dump-dom');
      expect(dom).toContain('Diagnosis: what holds the update');
      expect(dom).toContain('what to do: relax or delete the PodDisruptionBudget');
      expect(dom).toContain('CVO waits on machine-config');
      expect(dom).toMatch(/<td>etcd<\/td><td>\+0\.2 s<\/td>/);
      expect(dom).toMatch(/<title>clusteroperator\/ingress at 4\.18\.8: \+0\.5s<\/title>/);
      expect(dom).toContain('simulated minutes');
    },
  );
});
