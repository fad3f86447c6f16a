// Workspace settings: index options, engines and optional models.
import type { z } from 'zod';
import type { EnginesView, IndexOptionsView } from '../../../server/contract/index-options.ts';
import type { ModelsView } from '../../../server/contract/models.ts';
import { api } from './client.ts';

export type { IndexOptionsView };
export type Engines = z.infer<typeof EnginesView>;
export type Models = z.infer<typeof ModelsView>;

export const getIndexOptions = () => api<IndexOptionsView>('GET', '/index-options');
export const putIndexOptions = (options: Record<string, unknown>) => api<IndexOptionsView>('PUT', '/index-options', options);
export const getEngines = () => api<Engines>('GET', '/engines');
export const getModels = () => api<Models>('GET', '/models');
