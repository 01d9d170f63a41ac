/** Version of this MCO build: what the operator writes into ControllerConfig generated-by-version and reports. */
export const MCO_VERSION = '0.1.0';
