/**
 * The kubelet's part of a rehearsal (see ./run.ts): the MCO's operator and controller of the release their Deployment
 * runs, and the operators restarted when they lose their Lease or their process exits.
 */
import { KubeClient } from '@keelson/kube';
import { type ComponentContext } from './components.js';
import { decideRestarts } from './supervise.js';
import { Session, type Supervised } from './session.js';
import { type Release } from './options.js';

/** The MCO operator and controller of one release (upstream: the pods of the machine-config Deployments). */
export async function startMco(
  s: Session,
  ctx: ComponentContext,
  releaseVersion: string,
  release?: Release,
  deadline = Date.now() + s.opts.timeoutSeconds * 1000,
): Promise<void> {
  const op =
    release !== undefined
      ? await s.as(ctx, 'machine-config-operator', release, deadline)
      : s.known('machine-config-operator', ctx);
  if (s.mco !== undefined) {
    await s.mco.operator.stop();
    await s.mco.controller.stop();
    s.emit({
      t: s.t(),
      type: 'component',
      component: 'machine-config-operator',
      state: 'restarted',
      detail: `Deployment rolled out to ${releaseVersion}`,
    });
  }
  const operator = s.started(
    'machine-config-operator',
    await s.c.startMachineConfigOperator(op.ctx, { releaseVersion }),
    op.who,
  );
  // the controller's pod starts once the operator has deployed its Deployment (waited for on the first start)
  const ctl =
    release !== undefined
      ? await s.as(ctx, 'machine-config-controller', release, deadline)
      : s.known('machine-config-controller', ctx);
  const controller = s.started(
    'machine-config-controller',
    await s.c.startMachineConfigController(ctl.ctx, { releaseVersion }),
    ctl.who,
  );
  s.mco = { version: releaseVersion, operator, controller };
  s.led.delete('machine-config-operator');
  s.led.delete('machine-config-controller');
}

/**
 * The kubelet's part for the operators' pods: upstream the CVO and the MCO's operator and controller exit when they
 * lose their Lease (e.g. renewals refused by API errors) and their container is started again; here the one that
 * lost it is stopped and started again, and waits for the Lease like a new pod. A CVO run as a child process counts
 * as leading once it logged so, and as having lost the Lease when it exited on its own (the bin exits on a lost
 * Lease, as upstream's does).
 */
export async function supervise(s: Session, ctx: ComponentContext): Promise<void> {
  const m = s.mco;
  const leading = new Map<Supervised, boolean | undefined>([
    ['cluster-version-operator', s.startCvo !== undefined ? s.cvo?.leading?.() : undefined],
    ['machine-config-operator', m?.operator.leading?.()],
    ['machine-config-controller', m?.controller.leading?.()],
  ]);
  const exited = new Map<Supervised, boolean>([
    ['cluster-version-operator', s.startCvo !== undefined && s.cvo?.exited?.() === true],
    ['machine-config-operator', m?.operator.exited?.() === true],
    ['machine-config-controller', m?.controller.exited?.() === true],
  ]);
  const d = decideRestarts(s.led, leading, exited);
  s.led = d.led;
  for (const component of d.restart) {
    if (component === 'cluster-version-operator') {
      await s.cvo?.stop();
      s.cvo = await s.startCvo?.();
    } else if (m !== undefined) {
      const part = component === 'machine-config-operator' ? 'operator' : 'controller';
      await m[part].stop();
      m[part] =
        part === 'operator'
          ? await s.c.startMachineConfigOperator(s.ctxOf(component, ctx), { releaseVersion: m.version })
          : await s.c.startMachineConfigController(s.ctxOf(component, ctx), { releaseVersion: m.version });
      s.stack.push(component, () => m[part].stop());
    }
    const why = exited.get(component) === true ? 'its process exited' : 'lost its Lease';
    s.emit({
      t: s.t(),
      type: 'component',
      component,
      state: 'restarted',
      detail: `${why}; started again, as the kubelet restarts the container of a process that exits`,
    });
  }
}

/** When the CVO has rolled the machine-config-operator Deployment to another release, runs that release's MCO. */
export async function followMcoDeployment(s: Session, direct: KubeClient, ctx: ComponentContext): Promise<void> {
  let d: unknown;
  try {
    d = await direct.request(
      'GET',
      '/apis/apps/v1/namespaces/openshift-machine-config-operator/deployments/machine-config-operator',
    );
  } catch {
    return;
  }
  const containers =
    (d as { spec?: { template?: { spec?: { containers?: { env?: { name?: string; value?: string }[] }[] } } } }).spec
      ?.template?.spec?.containers ?? [];
  const version = containers.flatMap((c) => c.env ?? []).find((e) => e.name === 'RELEASE_VERSION')?.value;
  if (version !== undefined && version !== s.mco?.version) await startMco(s, ctx, version);
}
