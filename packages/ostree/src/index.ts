/** Placeholder: filled by its issue. */
export const packageName = '@keelson/ostree';
export const placeholder = true;
