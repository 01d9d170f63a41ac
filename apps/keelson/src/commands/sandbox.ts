import type { Command } from 'commander';

/** Registers the commands of this area (owned by its issue; see the package README). */
export function registerSandboxCommands(_program: Command): void {
  // filled by the issue that owns this area
}
