/** Small accessors over decoded Butane values. */
import type { BObj, BValue } from './decode.js';

/** The value as a struct, or an empty one. */
export const obj = (v: BValue | undefined): BObj =>
  v !== undefined && typeof v === 'object' && !Array.isArray(v) ? v : {};
/** The value as a list, or an empty one. */
export const list = (v: BValue | undefined): BValue[] => (Array.isArray(v) ? v : []);
/** The value as a string, or `''` (Go's zero value). */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
