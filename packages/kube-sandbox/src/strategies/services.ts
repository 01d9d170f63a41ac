/** Services: defaults, a cluster IP from OpenShift's service network (immutable once allocated), status. */
import type { Cluster } from '../cluster.js';
import { defaultService } from '../defaults.js';
import type { JsonObject } from '../types.js';
import { isObject } from '../util.js';

export function installServiceStrategy(cluster: Cluster): void {
  let nextServiceIp = 1;
  cluster.setStrategy('', 'services', {
    prepareCreate(obj) {
      defaultService(obj);
      const spec = obj['spec'] as JsonObject;
      if (spec['type'] !== 'ExternalName') {
        if (spec['clusterIP'] === undefined || spec['clusterIP'] === '') {
          // allocate from OpenShift's default service network 172.30.0.0/16
          const n = nextServiceIp++;
          spec['clusterIP'] = `172.30.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
        }
        spec['clusterIPs'] ??= [spec['clusterIP']];
        spec['ipFamilies'] ??= ['IPv4'];
        spec['ipFamilyPolicy'] ??= 'SingleStack';
      }
      obj['status'] = { loadBalancer: {} };
    },
    prepareUpdate(obj, old) {
      defaultService(obj);
      const spec = obj['spec'] as JsonObject;
      const oldSpec = (isObject(old['spec']) ? old['spec'] : {}) as JsonObject;
      // clusterIP is immutable once allocated
      if (spec['clusterIP'] === undefined || spec['clusterIP'] === '') spec['clusterIP'] = oldSpec['clusterIP'];
      if (spec['clusterIPs'] === undefined) spec['clusterIPs'] = oldSpec['clusterIPs'];
    },
    validate(obj, old) {
      const spec = (isObject(obj['spec']) ? obj['spec'] : {}) as JsonObject;
      const oldSpec = (old && isObject(old['spec']) ? old['spec'] : undefined) as JsonObject | undefined;
      if (oldSpec && oldSpec['clusterIP'] !== undefined && spec['clusterIP'] !== oldSpec['clusterIP'])
        return [
          {
            field: 'spec.clusterIP',
            type: 'FieldValueInvalid',
            value: spec['clusterIP'],
            detail: 'field is immutable',
          },
        ];
      return [];
    },
  });
}
