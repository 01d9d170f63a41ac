import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  createTask,
  createTaskNode,
  ManifestGraphError,
  runGraph,
  TaskGraph,
  type Task,
  type TaskNode,
} from '../src/index.js';

interface VNode {
  tasks: string[];
  in: number[];
  out: number[];
}
interface RunVector {
  name: string;
  function: string;
  input: { nodes: VNode[]; maxParallelism: number; callbacks: Record<string, string> };
  expected: { invariants: Record<string, unknown>[]; errors: string[] };
}

const file = new URL('./fixtures/upstream/vectors/cvo-taskgraph-vectors.json', import.meta.url);
const vectors = (JSON.parse(readFileSync(file, 'utf8')) as { vectors: RunVector[] }).vectors.filter(
  (v) => v.function === 'RunGraph',
);

/** Upstream's test tasks: ConfigMaps in namespace default, index/total 0. */
const cm = (name: string): Task =>
  createTask({ filename: name, version: 'v1', kind: 'ConfigMap', namespace: 'default', name });

function checkInvariant(inv: Record<string, unknown>, executed: string[]): void {
  const [kind, arg] = Object.entries(inv)[0] ?? ['', null];
  switch (kind) {
    case 'exactly':
      expect(executed).toEqual(arg);
      break;
    case 'permutation':
      expect([...executed].sort()).toEqual([...(arg as string[])].sort());
      break;
    case 'atIndex': {
      const [i, name] = arg as [number, string];
      expect(executed[i]).toBe(name);
      break;
    }
    case 'subseq': {
      const seq = arg as string[];
      const start = executed.indexOf(seq[0] ?? '');
      expect(start).toBeGreaterThanOrEqual(0);
      expect(executed.slice(start, start + seq.length)).toEqual(seq);
      break;
    }
    case 'before': {
      const [a, b] = arg as [string, string];
      const ia = executed.indexOf(a);
      const ib = executed.indexOf(b);
      if (ia >= 0 && ib >= 0) expect(ia).toBeLessThan(ib);
      break;
    }
    default:
      throw new Error(`unknown invariant ${kind}`);
  }
}

/** The upstream test's callbacks, keyed by the vector's description of them. */
type Callback = (name: string, signal: AbortSignal, cancel: () => void) => Promise<Error | null>;
const canceled = (): Error => new Error('context canceled');
function callbackFor(desc: string): Callback {
  const m = /^return error '(.*)'$/.exec(desc);
  if (m !== null) return () => Promise.resolve(new Error(m[1]));
  if (desc.startsWith('cancel the outer context, wait for ctx.Done')) {
    return async (_n, signal, cancel) => {
      cancel();
      if (!signal.aborted) await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      return canceled();
    };
  }
  if (desc.startsWith('if ctx already cancelled return ctx.Err(); else cancel')) {
    return (_n, signal, cancel) => {
      if (signal.aborted) return Promise.resolve(canceled());
      cancel();
      return Promise.resolve(null);
    };
  }
  if (desc.startsWith('return ctx.Err()')) return (_n, signal) => Promise.resolve(signal.aborted ? canceled() : null);
  if (desc === 'cancel the outer context, return nil') {
    return (_n, _s, cancel) => {
      cancel();
      return Promise.resolve(null);
    };
  }
  if (desc.startsWith('must never run')) return (n) => Promise.reject(new Error(`task ${n} must never run`));
  throw new Error(`unknown callback ${desc}`);
}

describe('runGraph (upstream TestRunGraph vectors)', () => {
  it('covers all 7 upstream cases', () => {
    expect(vectors).toHaveLength(7);
  });
  for (const v of vectors) {
    it(v.name, async () => {
      const nodes = v.input.nodes.map((n) => createTaskNode(n.tasks.map(cm), [...n.in], [...n.out]));
      const callbacks = Object.fromEntries(Object.entries(v.input.callbacks).map(([k, d]) => [k, callbackFor(d)]));
      const controller = new AbortController();
      const executed: string[] = [];
      const errs = await runGraph(
        TaskGraph.fromNodes(nodes),
        { maxParallelism: v.input.maxParallelism, signal: controller.signal },
        async (tasks, { signal }) => {
          for (const task of tasks) {
            await sleep(Math.floor(Math.random() * 4));
            const cb = callbacks[task.filename] ?? callbacks['*'];
            if (cb !== undefined) {
              const err = await cb(task.filename, signal, () => controller.abort());
              if (err !== null) throw err;
            }
            executed.push(task.filename);
          }
        },
      );
      for (const inv of v.expected.invariants) checkInvariant(inv, executed);
      const messages = errs.map((e) => e.message).sort();
      expect(messages).toHaveLength(v.expected.errors.length);
      v.expected.errors.forEach((want, i) => expect(messages[i]).toContain(want));
    });
  }
});

/** A chain a -> b -> c plus an independent chain x -> y. */
function twoChains(): TaskNode[] {
  return [
    createTaskNode([cm('a')], [], [1]),
    createTaskNode([cm('b')], [0], [2]),
    createTaskNode([cm('c')], [1], []),
    createTaskNode([cm('x')], [], [4]),
    createTaskNode([cm('y')], [3], []),
  ];
}

describe('runGraph semantics', () => {
  it('never starts dependents of a failed node and lets independent branches finish', async () => {
    const ran: string[] = [];
    const errs = await runGraph({ nodes: twoChains() }, { maxParallelism: 2 }, (tasks) => {
      const name = tasks[0]?.filename ?? '';
      ran.push(name);
      if (name === 'b') throw new Error('b broke');
    });
    expect(ran.sort()).toEqual(['a', 'b', 'x', 'y']);
    expect(errs.map((e) => e.message)).toEqual(['b broke']);
  });

  it('reports every failure in node order and wraps non-Error throws', async () => {
    const errs = await runGraph({ nodes: twoChains() }, { maxParallelism: 3 }, (tasks) => {
      const name = tasks[0]?.filename ?? '';
      if (name === 'a') throw new Error('a broke');
      if (name === 'x') throw 'x string'; // eslint-disable-line @typescript-eslint/only-throw-error
    });
    expect(errs.map((e) => e.message)).toEqual(['a broke', 'task worker failed: x string']);
    const wrapped = errs[1];
    expect(wrapped).toBeInstanceOf(ManifestGraphError);
    expect(wrapped instanceof ManifestGraphError ? wrapped.code : '').toBe('TASK_FAILED');
  });

  it('stops starting work once the signal aborts and reports the incomplete nodes', async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const errs = await runGraph({ nodes: twoChains() }, { maxParallelism: 1, signal: controller.signal }, (tasks) => {
      ran.push(tasks[0]?.filename ?? '');
      controller.abort();
    });
    expect(ran).toEqual(['a']);
    expect(errs.map((e) => e.message)).toEqual([
      '4 incomplete task nodes, beginning with configmap "default/b" (0 of 0)',
      'context canceled',
    ]);
    expect(errs.map((e) => (e instanceof ManifestGraphError ? e.code : ''))).toEqual(['INCOMPLETE', 'CANCELED']);
  });

  it('does nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const errs = await runGraph({ nodes: twoChains() }, { maxParallelism: 4, signal: controller.signal }, () => {
      calls++;
    });
    expect(calls).toBe(0);
    expect(errs.map((e) => e.message)).toEqual([
      '5 incomplete task nodes, beginning with configmap "default/a" (0 of 0)',
      'context canceled',
    ]);
  });

  it('counts spacer nodes as incomplete but names the first node with tasks', async () => {
    const nodes = [
      createTaskNode([cm('a')], [], [1]),
      createTaskNode([], [0], [2]),
      createTaskNode([cm('c')], [1], []),
    ];
    const controller = new AbortController();
    const errs = await runGraph({ nodes }, { maxParallelism: 1, signal: controller.signal }, () => controller.abort());
    expect(errs[0]?.message).toBe('2 incomplete task nodes, beginning with configmap "default/c" (0 of 0)');
  });

  for (const max of [1, 2, 3, 7]) {
    it(`never runs more than maxParallelism=${max} nodes at once and reaches the bound`, async () => {
      const nodes = Array.from({ length: 20 }, (_, i) => createTaskNode([cm(`t${i}`)]));
      let active = 0;
      let peak = 0;
      const gates: (() => void)[] = [];
      const done: string[] = [];
      const run = runGraph({ nodes }, { maxParallelism: max }, async (tasks) => {
        active++;
        peak = Math.max(peak, active);
        await new Promise<void>((r) => gates.push(r));
        active--;
        done.push(tasks[0]?.filename ?? '');
      });
      // Release workers one at a time once the scheduler has filled every slot.
      while (done.length < nodes.length) {
        await sleep(0);
        expect(active).toBeLessThanOrEqual(max);
        if (active === Math.min(max, nodes.length - done.length) || gates.length > 0) gates.shift()?.();
      }
      expect(await run).toEqual([]);
      expect(peak).toBe(max);
    });
  }

  it('clamps maxParallelism below 1 to 1', async () => {
    const nodes = Array.from({ length: 5 }, (_, i) => createTaskNode([cm(`t${i}`)]));
    let active = 0;
    let peak = 0;
    await runGraph({ nodes }, { maxParallelism: 0 }, async () => {
      active++;
      peak = Math.max(peak, active);
      await sleep(1);
      active--;
    });
    expect(peak).toBe(1);
  });

  it('starts available nodes in index order', async () => {
    const nodes = [
      createTaskNode([cm('late')], [2], []),
      createTaskNode([cm('first')]),
      createTaskNode([cm('second')], [], [0]),
    ];
    const order: string[] = [];
    await runGraph({ nodes }, { maxParallelism: 1 }, (tasks) => {
      order.push(tasks[0]?.filename ?? '');
    });
    expect(order).toEqual(['first', 'second', 'late']);
  });
});
