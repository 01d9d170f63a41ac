#!/usr/bin/env node
/**
 * A CPU profile of a RUNNING Node process for a window of time (a long rehearsal's install or update phase, without
 * waiting for its exit as `--cpu-prof` does): opens the process's inspector (SIGUSR1), takes a profile over the
 * Chrome DevTools protocol for SECONDS, writes it to OUT (a `.cpuprofile`, read it with cpuprofile-summary.mjs).
 * Usage: node bench/live-profile.mjs PID SECONDS OUT.cpuprofile [--port 9229]
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { port: { type: 'string', default: '9229' } },
});
const [pidText, secondsText, out] = positionals;
if (pidText === undefined || secondsText === undefined || out === undefined) {
  console.error('usage: live-profile.mjs PID SECONDS OUT.cpuprofile [--port 9229]');
  process.exit(2);
}
process.kill(Number(pidText), 'SIGUSR1');
let targets;
for (let i = 0; i < 50 && targets === undefined; i++) {
  try {
    targets = await (await fetch(`http://127.0.0.1:${values.port}/json/list`)).json();
  } catch {
    await new Promise((r) => setTimeout(r, 200));
  }
}
if (!Array.isArray(targets) || targets.length === 0) throw new Error(`no inspector on port ${values.port}`);
const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
await new Promise((resolve, reject) => {
  ws.onopen = resolve;
  ws.onerror = reject;
});
let id = 0;
const pending = new Map();
ws.onmessage = (m) => {
  const msg = JSON.parse(String(m.data));
  if (msg.id !== undefined) pending.get(msg.id)?.(msg);
};
const call = (method, params = {}) =>
  new Promise((resolve) => {
    const n = ++id;
    pending.set(n, resolve);
    ws.send(JSON.stringify({ id: n, method, params }));
  });
await call('Profiler.enable');
await call('Profiler.setSamplingInterval', { interval: 1000 });
await call('Profiler.start');
await new Promise((r) => setTimeout(r, Number(secondsText) * 1000));
const res = await call('Profiler.stop');
await writeFile(out, JSON.stringify(res.result.profile));
ws.close();
console.log(`wrote ${out}`);
