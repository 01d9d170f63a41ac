/** Ignition spec: filled by issue 3 (spec half). */
export const ignitionSpecPlaceholder = true;
