/** The value tree of the yaml.v2 encoder (Go float64/uint64 kept apart from JS numbers) and its error. */
/** A float64 whose value is integral but must still be written as a Go float (e.g. JSON `1.0`, `1e3`). */
export class GoFloat {
  constructor(readonly value: number) {}
}

/** An unsigned 64-bit integer above the int64 range (yaml.v2 resolves such JSON numbers to uint64). */
export class GoUint {
  constructor(readonly value: bigint) {}
}

/**
 * A value in the generic tree yaml.v2 marshals. Integral JS numbers are Go `int`, non-integral ones `float64`;
 * `bigint` is an int64; {@link GoFloat} / {@link GoUint} force the other Go kinds.
 */
export type GoYamlValue =
  | null
  | boolean
  | string
  | number
  | bigint
  | GoFloat
  | GoUint
  | GoYamlValue[]
  | { readonly [key: string]: GoYamlValue };

/** Raised when yaml.v2 would refuse the input (same texts as the Go library). */
export class YamlV2Error extends Error {
  /** Stable error code. */
  readonly code = 'YAML_V2_ERROR';
  constructor(message: string) {
    super(message);
    this.name = 'YamlV2Error';
  }
}
