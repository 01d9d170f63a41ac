/** Placeholder: filled by its issue. */
export const packageName = '@keelson/manifest-graph';
export const placeholder = true;
