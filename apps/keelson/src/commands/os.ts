import type { Command } from 'commander';

/** Registers the commands of this area (owned by its issue; see the package README). */
export function registerOsCommands(_program: Command): void {
  // filled by the issue that owns this area
}
