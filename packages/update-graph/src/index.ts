/** Placeholder: filled by its issue. */
export const packageName = '@keelson/update-graph';
export const placeholder = true;
