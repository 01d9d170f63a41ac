import { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { isUsageError, parseFlags, runProgram, UsageError } from '../src/index.js';

const FLAGS = {
  'root-mount': { type: 'string', default: '/' },
  kubeconfig: { type: 'string' },
  'skip-reboot': { type: 'boolean', default: false },
  dns: { type: 'boolean' },
  caps: { type: 'string', multiple: true },
} as const;

describe('parseFlags (commander under a typed flag table)', () => {
  it('reads values, defaults, = and space forms, repeated flags', () => {
    const r = parseFlags('x', FLAGS, ['--kubeconfig=/k', '--caps', 'a,b', '--caps=c', '--skip-reboot']);
    expect(r).toEqual({
      help: false,
      values: { 'root-mount': '/', kubeconfig: '/k', 'skip-reboot': true, dns: undefined, caps: ['a,b', 'c'] },
    });
  });

  it('a bad command line is a UsageError (exit 2) naming the flag, followed by the usage text', () => {
    const bad = (args: string[]): UsageError => {
      try {
        parseFlags('x', FLAGS, args, 'Usage: x [flags]');
      } catch (e) {
        if (isUsageError(e)) return e;
        throw e;
      }
      throw new Error('no error');
    };
    expect(bad(['--bogus']).reason).toBe("unknown option '--bogus'");
    expect(bad(['--bogus']).message).toBe("unknown option '--bogus'\nUsage: x [flags]");
    expect(bad(['--bogus']).exitCode).toBe(2);
    expect(bad(['--kubeconfig']).reason).toBe("option '--kubeconfig <value>' argument missing");
    expect(bad(['stray']).reason).toMatch(/too many arguments/);
  });

  it('--help writes the usage text to stdout', () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(parseFlags('x', FLAGS, ['--help'], 'Usage: x [flags]')).toEqual({ help: true });
      expect(out).toHaveBeenCalledWith('Usage: x [flags]\n');
    } finally {
      out.mockRestore();
    }
  });
});

describe('runProgram', () => {
  const program = (): Command => {
    const p = new Command('bin').configureOutput({ writeErr: () => undefined });
    p.command('start')
      .option('--v <n>')
      .action((o: { v?: string }) => {
        if (o.v === 'bad') throw new UsageError('--v: bad');
      });
    return p;
  };
  it('exit codes: 0 ran, 2 for an unknown flag of a subcommand, 2 for a UsageError of an action', async () => {
    expect(await runProgram(program(), ['start', '--v', '2'])).toBe(0);
    expect(await runProgram(program(), ['start', '--bogus'])).toBe(2);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await runProgram(program(), ['start', '--v', 'bad'])).toBe(2);
      expect(err).toHaveBeenCalledWith('--v: bad\n');
    } finally {
      err.mockRestore();
    }
  });
});
