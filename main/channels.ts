// The IPC channels between the preload and the shell: the whole surface the page can reach.
export const CHANNELS = {
  session: 'media-index:session',
  pickFiles: 'media-index:pick-files',
  pickFolder: 'media-index:pick-folder',
  reveal: 'media-index:reveal',
} as const;
