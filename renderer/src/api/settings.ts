// Workspace settings: index options, engines and optional models.
import type { z } from 'zod';
import type { EnginesView, IndexOptionsView } from '../../../server/contract/index-options.ts';
import type { ModelsView } from '../../../server/contract/models.ts';
import type { CreatedKeyView, KeysView } from '../../../server/contract/keys.ts';
import { api } from './client.ts';

export type { IndexOptionsView };
export type Engines = z.infer<typeof EnginesView>;
export type Models = z.infer<typeof ModelsView>;
export type Keys = z.infer<typeof KeysView>;
export type CreatedKey = z.infer<typeof CreatedKeyView>;

export const getIndexOptions = () => api<IndexOptionsView>('GET', '/index-options');
export const putIndexOptions = (options: Record<string, unknown>) => api<IndexOptionsView>('PUT', '/index-options', options);
export const getEngines = () => api<Engines>('GET', '/engines');
export const getModels = () => api<Models>('GET', '/models');
export const getKeys = () => api<Keys>('GET', '/keys');
export const createKey = (body: { label?: string; scopes: Array<'read' | 'write'>; expires_in?: string }) => api<CreatedKey>('POST', '/keys', body);
export const revokeKey = (id: string) => api<{ key_id: string; revoked: true }>('DELETE', `/keys/${encodeURIComponent(id)}`);
export const importModel = (name: string, from: string) => api<{ name: string; state: string }>('POST', `/models/${encodeURIComponent(name)}/import`, { from });
export const pullModel = (name: string) => api<{ name: string; state: string }>('POST', `/models/${encodeURIComponent(name)}/pull`);
