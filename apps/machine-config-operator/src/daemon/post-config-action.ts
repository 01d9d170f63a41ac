/**
 * Post-config actions that avoid a reboot (update.go performPostConfigChangeNodeDisruptionAction and the legacy
 * performPostConfigChangeAction): node-disruption-policy actions run in order (Reboot is handled by the caller),
 * legacy actions `none` / `reload crio` / `restart crio`.
 */
import type { DisruptionAction, LegacyPostConfigAction } from '@keelson/machineconfig';
import { HostCommandError, type Host } from './host.js';

/** True when the actions end in a reboot. */
export function isRebootAction(actions: readonly DisruptionAction[] | readonly LegacyPostConfigAction[]): boolean {
  return actions.some((a) => (typeof a === 'string' ? a === 'reboot' : a.type === 'Reboot'));
}

async function systemctl(host: Host, args: string[]): Promise<void> {
  const r = await host.systemctl(args);
  if (r.exitCode !== 0) throw new HostCommandError(['systemctl', ...args], r);
}

/** A short human text of one action (events, logs, virtual-node events). */
export function describeAction(a: DisruptionAction): string {
  switch (a.type) {
    case 'Reload':
      return `Reload ${a.reload.serviceName}`;
    case 'Restart':
      return `Restart ${a.restart.serviceName}`;
    default:
      return a.type;
  }
}

/** Runs node-disruption-policy actions except Reboot; returns what ran. */
export async function runDisruptionActions(host: Host, actions: readonly DisruptionAction[]): Promise<string[]> {
  const ran: string[] = [];
  for (const a of actions) {
    switch (a.type) {
      case 'Reboot':
      case 'Drain':
      case 'None':
        break;
      case 'Restart':
        try {
          await systemctl(host, ['restart', a.restart.serviceName]);
        } catch (e) {
          if (a.restart.serviceName !== 'coreos-update-ca-trust.service') throw e;
          await host.updateCaTrust();
        }
        break;
      case 'Reload':
        await systemctl(host, ['reload', a.reload.serviceName]);
        break;
      case 'Special':
        await systemctl(host, ['reload', 'crio']);
        break;
      case 'DaemonReload':
        await systemctl(host, ['daemon-reload']);
        break;
    }
    ran.push(describeAction(a));
  }
  return ran;
}

/** Runs the legacy action (firstboot and older daemons). */
export async function runLegacyAction(host: Host, actions: readonly LegacyPostConfigAction[]): Promise<string[]> {
  if (actions.includes('restart crio')) {
    await host.updateCaTrust();
    await systemctl(host, ['restart', 'crio']);
    return ['restart crio'];
  }
  if (actions.includes('reload crio')) {
    await systemctl(host, ['reload', 'crio']);
    return ['reload crio'];
  }
  return [];
}
