import { MACHINE_CONFIG_EXTENSIONS } from '@keelson/api';

/**
 * Extension allow-list (extension → packages), as in the MCO daemon.
 * @deprecated Use `MACHINE_CONFIG_EXTENSIONS` from `@keelson/api` (the same object).
 */
export const SUPPORTED_EXTENSIONS: Readonly<Record<string, readonly string[]>> = MACHINE_CONFIG_EXTENSIONS;
