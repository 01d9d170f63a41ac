/** Placeholder: filled by its issue. */
export const packageName = '@keelson/ignition';
export const placeholder = true;
