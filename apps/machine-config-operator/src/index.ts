/** The Machine Config Operator: operator, controller, server and daemon entry points */
export const APP_NAME = 'machine-config-operator';
export * from './controller-api.js';
