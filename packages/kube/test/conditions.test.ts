import { describe, expect, it } from 'vitest';
import {
  conditionsEqual,
  findCondition,
  isConditionFalse,
  isConditionTrue,
  kubeTime,
  removeCondition,
  setCondition,
  type Condition,
} from '../src/index.js';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const t1 = new Date('2026-01-01T00:05:00.000Z');

describe('status conditions', () => {
  it('adds a new condition with lastTransitionTime = now', () => {
    const r = setCondition<Condition>(
      undefined,
      { type: 'Available', status: 'True', reason: 'AsExpected', message: 'ok' },
      t0,
    );
    expect(r.changed).toBe(true);
    expect(r.conditions).toEqual([
      {
        type: 'Available',
        status: 'True',
        reason: 'AsExpected',
        message: 'ok',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
  });

  it('keeps lastTransitionTime when only reason/message change, updates them', () => {
    const a = setCondition<Condition>([], { type: 'Degraded', status: 'False', reason: 'A' }, t0).conditions;
    const b = setCondition(a, { type: 'Degraded', status: 'False', reason: 'B', message: 'm' }, t1);
    expect(b.changed).toBe(true);
    expect(findCondition(b.conditions, 'Degraded')).toEqual({
      type: 'Degraded',
      status: 'False',
      reason: 'B',
      message: 'm',
      lastTransitionTime: kubeTime(t0),
    });
    const same = setCondition(b.conditions, { type: 'Degraded', status: 'False', reason: 'B', message: 'm' }, t1);
    expect(same.changed).toBe(false);
    expect(a).toHaveLength(1);
    expect(a[0]?.reason).toBe('A'); // input not mutated
  });

  it('moves lastTransitionTime when status changes', () => {
    const a = setCondition<Condition>([], { type: 'Progressing', status: 'False' }, t0).conditions;
    const b = setCondition(a, { type: 'Progressing', status: 'True', reason: 'Updating' }, t1).conditions;
    expect(b[0]?.lastTransitionTime).toBe('2026-01-01T00:05:00Z');
    expect(isConditionTrue(b, 'Progressing')).toBe(true);
    expect(isConditionFalse(b, 'Progressing')).toBe(false);
    expect(isConditionTrue(b, 'Missing')).toBe(false);
  });

  it('supports metav1.Condition observedGeneration and removal', () => {
    const a = setCondition<Condition>([], { type: 'Ready', status: 'True', observedGeneration: 1 }, t0).conditions;
    const b = setCondition(a, { type: 'Ready', status: 'True', observedGeneration: 2 }, t1);
    expect(b.changed).toBe(true);
    expect(b.conditions[0]?.observedGeneration).toBe(2);
    expect(b.conditions[0]?.lastTransitionTime).toBe(kubeTime(t0));
    const removed = removeCondition(b.conditions, 'Ready');
    expect(removed).toEqual({ conditions: [], changed: true });
    expect(removeCondition(removed.conditions, 'Ready').changed).toBe(false);
  });

  it('compares condition sets ignoring order and transition times', () => {
    const x: Condition[] = [
      { type: 'A', status: 'True', lastTransitionTime: 't1' },
      { type: 'B', status: 'False', reason: 'r' },
    ];
    const y: Condition[] = [
      { type: 'B', status: 'False', reason: 'r', lastTransitionTime: 'other' },
      { type: 'A', status: 'True' },
    ];
    expect(conditionsEqual(x, y)).toBe(true);
    expect(conditionsEqual(x, [y[0] as Condition])).toBe(false);
    expect(conditionsEqual(x, [{ type: 'A', status: 'False' }, y[0] as Condition])).toBe(false);
    expect(conditionsEqual(undefined, [])).toBe(true);
  });
});
