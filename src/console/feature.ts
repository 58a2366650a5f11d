// The web console (docs/console.md): its static files are an open router of the management
// listener (src/app/apps.ts), its JSON routes sit behind the API key like the rest.
import type { Feature, PresentedCertificate, ServiceContext } from '../featureContract.js';
import type { TrustListStore } from '../trust/trustListStore.js';
import { LiveStreams } from './live.js';
import { consoleRouter } from './routes.js';

/** `trustLists`: those the service follows (undefined with static anchors); `certificates`: those the other features present. */
export const consoleFeature = (
  context: ServiceContext,
  shown: { readonly trustLists: TrustListStore | undefined; readonly certificates: readonly PresentedCertificate[] },
): Feature => {
  const live = new LiveStreams(context.store, context.log.child({ component: 'console' }));
  return {
    name: 'console',
    managementRouters: [consoleRouter({ context, live, ...shown })],
    stop: () => live.stop(),
  };
};
