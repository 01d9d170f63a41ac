import type { Command } from 'commander';

/** Registers `keelson payload graph`. */
export function registerPayloadGraphCommand(_payload: Command): void {
  // filled by issue 2
}
