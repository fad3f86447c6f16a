// Settings of the workspace: index options (what indexing runs by default), engines, models.
import { create } from 'zustand';
import * as Settings from '../api/settings.ts';
import { attempt, useToasts } from './toasts.ts';

interface SettingsState {
  options: Settings.IndexOptionsView | null;
  engines: Settings.Engines | null;
  models: Settings.Models | null;
  keys: Settings.Keys['keys'];
  /** The key just created: shown once, until dismissed. */
  created: Settings.CreatedKey | null;
  load(): Promise<void>;
  createKey(body: { label?: string; scopes: Array<'read' | 'write'>; expires_in?: string }): Promise<void>;
  revokeKey(id: string): Promise<void>;
  dismissCreated(): void;
  /** Downloads a pinned model (progress polled until it ends). */
  pull(name: string): Promise<void>;
  /** Installs a model from a folder or a file on this machine (progress polled until it ends). */
  importFrom(name: string, from: string): Promise<void>;
  setStage(stage: string, enabled: boolean): Promise<void>;
  reset(): Promise<void>;
}

/** Polls the models until the download or import of `name` ends, then says how it went. */
async function follow(name: string, update: (m: Settings.Models) => void): Promise<void> {
  for (;;) {
    const models = await Settings.getModels().catch(() => null);
    if (models) update(models);
    const p = models?.models.find((m) => m.name === name)?.pull;
    if (!p || (p.state !== 'downloading' && p.state !== 'importing')) {
      if (p?.state === 'installed') useToasts.getState().push('info', `${name} installed; assets that missed it are being indexed with it.`);
      if (p?.state === 'failed') useToasts.getState().push('error', `${name}: ${p.error}`);
      return;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

export const useSettings = create<SettingsState>((set, get) => ({
  options: null,
  engines: null,
  models: null,
  keys: [],
  created: null,
  async load() {
    const [options, engines, models, keys] = await Promise.all([
      attempt('Loading index options', Settings.getIndexOptions),
      attempt('Loading engines', Settings.getEngines),
      attempt('Loading models', Settings.getModels),
      Settings.getKeys().catch(() => null), // a read-only key may not list keys
    ]);
    set({ options: options ?? null, engines: engines ?? null, models: models ?? null, keys: keys?.keys ?? [] });
  },
  async createKey(body) {
    const created = await attempt('Creating a key', () => Settings.createKey(body));
    if (!created) return;
    set({ created });
    const keys = await Settings.getKeys().catch(() => null);
    if (keys) set({ keys: keys.keys });
  },
  async revokeKey(id) {
    if (!(await attempt('Revoking the key', () => Settings.revokeKey(id)))) return;
    useToasts.getState().push('info', 'Key revoked.');
    const keys = await Settings.getKeys().catch(() => null);
    if (keys) set({ keys: keys.keys });
  },
  dismissCreated() {
    set({ created: null });
  },
  async pull(name) {
    if (!(await attempt(`Installing ${name}`, () => Settings.pullModel(name)))) return;
    await follow(name, (models) => set({ models }));
  },
  async importFrom(name, from) {
    if (!(await attempt(`Importing ${name}`, () => Settings.importModel(name, from)))) return;
    await follow(name, (models) => set({ models }));
  },
  async setStage(stage, enabled) {
    const current = get().options?.workspace ?? {};
    const r = await attempt('Saving index options', () => Settings.putIndexOptions({ ...current, [stage]: enabled }));
    if (r) {
      set({ options: r });
      useToasts.getState().push('info', `${stage} ${enabled ? 'on' : 'off'} for new uploads.`);
    }
  },
  async reset() {
    const r = await attempt('Resetting index options', () => Settings.putIndexOptions({}));
    if (r) set({ options: r });
  },
}));
