/** Placeholder: filled by its issue. */
export const packageName = '@keelson/kube-sandbox';
export const placeholder = true;
