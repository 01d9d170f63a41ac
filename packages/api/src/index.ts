/** @keelson/api: typed OpenShift objects, CRDs and constants. */
export const API_GROUP_CONFIG = 'config.openshift.io';
