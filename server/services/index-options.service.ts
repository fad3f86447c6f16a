// Index options (SPEC 2.8): the stage catalogue, a workspace's overrides and the effective result.
// Reads and writes workspaces.index_options.
import type { Store } from '../store/index.ts';
import { Errors, detailsFromIssues } from '../errors.ts';
import { IndexOptionsInput, STAGE_NAMES, STAGE_SPECS, describeValues, resolveOptions, type EffectiveOptions } from '../contract/stages.ts';
import type { IndexOptionsView } from '../contract/index-options.ts';
import { STAGES } from '../indexer/registry.ts';

export function parseOptionsLayer(raw: unknown, prefix = ''): IndexOptionsInput {
  const parsed = IndexOptionsInput.safeParse(raw);
  if (!parsed.success) throw Errors.invalidOptions(detailsFromIssues(parsed.error.issues, prefix));
  return parsed.data;
}

export class IndexOptionsService {
  constructor(private readonly store: Store) {}

  workspaceLayer(workspaceId: string): IndexOptionsInput {
    const row = this.store.workspaces.byId(workspaceId);
    return row ? (JSON.parse(row.index_options) as IndexOptionsInput) : {};
  }

  /** Effective options for an upload: upload layer over workspace layer over deployment defaults. */
  effective(workspaceId: string, upload: IndexOptionsInput = {}): EffectiveOptions {
    const { effective, problems } = resolveOptions(this.workspaceLayer(workspaceId), upload);
    if (problems.length > 0) throw Errors.invalidOptions(problems);
    return effective;
  }

  view(workspaceId: string): IndexOptionsView {
    const workspace = this.workspaceLayer(workspaceId);
    return {
      stages: STAGE_NAMES.map((name) => {
        const availability = STAGES[name].availability({ dataDir: this.store.files.root });
        return {
          name,
          description: STAGE_SPECS[name].description,
          default: STAGE_SPECS[name].enabledByDefault,
          available: availability.available,
          availability_reason: availability.reason,
          values: describeValues(name),
        };
      }),
      workspace,
      effective: resolveOptions(workspace).effective,
    };
  }

  /** Replaces the workspace's overrides; `{}` clears them. */
  put(workspaceId: string, body: unknown): IndexOptionsView {
    const layer = parseOptionsLayer(body);
    const { problems } = resolveOptions(layer);
    if (problems.length > 0) throw Errors.invalidOptions(problems);
    this.store.workspaces.setIndexOptions(workspaceId, JSON.stringify(layer));
    return this.view(workspaceId);
  }
}
