/** Placeholder: filled by its issue. */
export const packageName = '@keelson/kube';
export const placeholder = true;
