/** Placeholder: filled by its issue. */
export const packageName = '@keelson/release-payload';
export const placeholder = true;
