// Settings of the workspace: index options (what indexing runs by default), engines, models.
import { create } from 'zustand';
import * as Settings from '../api/settings.ts';
import { attempt, useToasts } from './toasts.ts';

interface SettingsState {
  options: Settings.IndexOptionsView | null;
  engines: Settings.Engines | null;
  models: Settings.Models | null;
  load(): Promise<void>;
  setStage(stage: string, enabled: boolean): Promise<void>;
  reset(): Promise<void>;
}

export const useSettings = create<SettingsState>((set, get) => ({
  options: null,
  engines: null,
  models: null,
  async load() {
    const [options, engines, models] = await Promise.all([
      attempt('Loading index options', Settings.getIndexOptions),
      attempt('Loading engines', Settings.getEngines),
      attempt('Loading models', Settings.getModels),
    ]);
    set({ options: options ?? null, engines: engines ?? null, models: models ?? null });
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
