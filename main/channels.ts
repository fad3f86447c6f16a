// The IPC channel of each bridge call (server/contract/desktop.ts): the whole surface the page can reach.
import type { BridgeCall } from '../server/contract/desktop.ts';

export const CHANNELS: { readonly [K in BridgeCall]: string } = {
  session: 'media-index:session',
  pickFiles: 'media-index:pick-files',
  pickFolder: 'media-index:pick-folder',
  pickLibraryFolder: 'media-index:pick-library-folder',
  pickModelSource: 'media-index:pick-model-source',
  reveal: 'media-index:reveal',
};
