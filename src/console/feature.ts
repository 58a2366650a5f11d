// The web console (docs/console.md): its static files are an open router of the management
// listener (src/app/apps.ts), its JSON routes sit behind the API key like the rest.
import type { Feature, ServiceContext } from '../featureContract.js';
import type { TrustListStore } from '../trust/trustListStore.js';
import { LiveStreams } from './live.js';
import { consoleRouter } from './routes.js';

export const consoleFeature = (context: ServiceContext, trustLists: TrustListStore | undefined): Feature => {
  const live = new LiveStreams(context.store, context.log.child({ component: 'console' }));
  return {
    name: 'console',
    managementRouters: [consoleRouter({ context, live, trustLists })],
    stop: () => live.stop(),
  };
};
