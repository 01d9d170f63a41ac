import { OstreeError } from './errors.js';
import { parseKernelCommandLine } from './kargs.js';

/** Layered package state of a deployment. */
export interface PackageState {
  readonly requestedPackages: readonly string[];
  readonly requestedBaseRemovals: readonly string[];
}

function bad(m: string): never {
  throw new OstreeError('SIMULATION', m);
}

/**
 * Applies `rpm-ostree kargs` edit arguments (`--append=`, `--append-if-missing=`, `--delete=`, `--delete-if-present=`,
 * `--replace=key=value` / `key=old=new`, `--unchanged-exit-77`) to a kernel argument list, with rpm-ostree's errors
 * for missing or ambiguous keys. Used by the simulated backends.
 */
export function applyKargsEdits(
  current: readonly string[],
  args: readonly string[],
): { next: string[]; changed: boolean } {
  const next = [...current];
  const keyOf = (a: string): string => a.split('=')[0] as string;
  for (const e of args) {
    if (e === '--unchanged-exit-77') continue;
    const m = /^--(append|delete|delete-if-present|replace|append-if-missing)=(.*)$/s.exec(e);
    if (!m) bad(`kargs: unsupported argument ${JSON.stringify(e)}`);
    const op = m[1] as string;
    const val = m[2] as string;
    if (parseKernelCommandLine(val).length !== 1) bad(`kargs: ${JSON.stringify(val)} is not a single kernel argument`);
    switch (op) {
      case 'append':
        next.push(val);
        break;
      case 'append-if-missing':
        if (!next.includes(val)) next.push(val);
        break;
      case 'delete':
      case 'delete-if-present': {
        let i = next.indexOf(val);
        if (i < 0 && !val.includes('=')) {
          const same = next.flatMap((a, j) => (keyOf(a) === val ? [j] : []));
          if (same.length > 1) bad(`kargs: multiple values for key "${val}" found`);
          i = same[0] ?? -1;
        }
        if (i >= 0) next.splice(i, 1);
        else if (op === 'delete') bad(`kargs: no karg "${val}" found`);
        break;
      }
      default: {
        const parts = val.split('=');
        const key = parts[0] as string;
        const idx = next.flatMap((a, j) => (keyOf(a) === key ? [j] : []));
        if (idx.length === 0) bad(`kargs: no karg with key "${key}" found`);
        if (parts.length >= 3) {
          const oldv = `${key}=${parts[1] as string}`;
          const j = next.indexOf(oldv);
          if (j < 0) bad(`kargs: no karg "${oldv}" found`);
          next[j] = `${key}=${parts.slice(2).join('=')}`;
        } else {
          if (idx.length > 1) bad(`kargs: multiple values for key "${key}" found`);
          next[idx[0] as number] = val;
        }
      }
    }
  }
  const changed = next.length !== current.length || next.some((v, i) => v !== current[i]);
  return { next, changed };
}

/**
 * Applies `override remove <pkgs> --install <p>`, `override reset <pkgs> --uninstall <p>` or
 * `update --install <p> --uninstall <q>` (argv after `rpm-ostree`) to a package state.
 */
export function applyPackageCommand(args: readonly string[], state: PackageState): PackageState {
  const [sub, ...rest] = args;
  if (sub === 'override') {
    const mode = rest[0];
    const pkgs: string[] = [];
    const extra: string[] = [];
    for (let i = 1; i < rest.length; i++) {
      const a = rest[i] as string;
      if (a === '--install' || a === '--uninstall') extra.push(rest[++i] ?? bad(`override: ${a} needs a package`));
      else pkgs.push(a);
    }
    if (mode === 'remove') {
      return {
        requestedBaseRemovals: [...new Set([...state.requestedBaseRemovals, ...pkgs])],
        requestedPackages: [...new Set([...state.requestedPackages, ...extra])],
      };
    }
    if (mode === 'reset') {
      for (const p of pkgs)
        if (!state.requestedBaseRemovals.includes(p)) bad(`override reset: no override for package "${p}"`);
      return {
        requestedBaseRemovals: state.requestedBaseRemovals.filter((p) => !pkgs.includes(p)),
        requestedPackages: state.requestedPackages.filter((p) => !extra.includes(p)),
      };
    }
    return bad(`override: unsupported mode ${JSON.stringify(mode)}`);
  }
  if (sub === 'update') {
    const install: string[] = [];
    const uninstall: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const a = rest[i] as string;
      if (a === '--install') install.push(rest[++i] ?? bad('update: --install needs a package'));
      else if (a === '--uninstall') uninstall.push(rest[++i] ?? bad('update: --uninstall needs a package'));
      else bad(`update: unsupported argument ${JSON.stringify(a)}`);
    }
    const req = state.requestedPackages;
    for (const p of uninstall) if (!req.includes(p)) bad(`update: package "${p}" is not currently requested`);
    return {
      requestedBaseRemovals: [...state.requestedBaseRemovals],
      requestedPackages: [...req.filter((p) => !uninstall.includes(p)), ...install.filter((p) => !req.includes(p))],
    };
  }
  return bad(`${JSON.stringify(sub)} is not a package command`);
}
