import { describe, expect, it } from 'vitest';
import type { FileReport } from './protocol.ts';
import { dropPath, placeFile, scanOutcome, shotOf, type Known, type KnownPath } from './reconcile.ts';

const PHOTOS = { id: 'L1', workspace_id: 'W', path: '/home/ana/Photos', stackRaw: true };
const BACKUP = { id: 'L2', workspace_id: 'W', path: '/media/ana/Backup', stackRaw: true };

interface Row extends KnownPath {
  sha256: string;
}

/** Rows as the repositories would give them: paths of libraries, assets with their file and whether deleted. */
function known(rows: Row[], assets: Record<string, { stored_path: string; live?: boolean }>): Known {
  const root = (id: string) => (id === PHOTOS.id ? PHOTOS.path : BACKUP.path);
  return {
    file: (libraryId, rel) => rows.find((r) => r.library_id === libraryId && r.rel_path === rel),
    asset: (id) => assets[id] && { stored_path: assets[id].stored_path, live: assets[id].live ?? true },
    filesOfAsset: (id) => rows.filter((r) => r.asset_id === id).map((r) => ({ ...r, root: root(r.library_id) })),
    withContent: (_w, sha) => rows.filter((r) => r.sha256 === sha && (assets[r.asset_id!]?.live ?? true)).map((r) => ({ ...r, root: root(r.library_id) })),
    sameShot: (libraryId, rel) =>
      rows
        .filter((r) => r.library_id === libraryId && r.rel_path !== rel && shotOf(r.rel_path) === shotOf(rel))
        .map((r) => ({ ...r, root: root(r.library_id) })),
  };
}
const row = (library_id: string, rel_path: string, asset_id: string, sha256: string): Row => ({
  library_id,
  rel_path,
  asset_id,
  sha256,
  size: 10,
  root: library_id === PHOTOS.id ? PHOTOS.path : BACKUP.path,
});
const file = (rel: string, sha256: string, gone: Array<{ library: string; rel: string }> = []): Extract<FileReport, { kind: 'file' }> => ({
  rel,
  kind: 'file',
  size: 10,
  mtimeMs: 1,
  sha256,
  mime: 'image/jpeg',
  ext: '.jpg',
  gone,
});

describe('placeFile: what a new or changed file means', () => {
  it('new content is a new asset', () => {
    expect(placeFile(PHOTOS, file('a.jpg', 'S1'), known([], {}))).toMatchObject({ kind: 'new' });
  });

  it('a file touched but not changed keeps its asset', () => {
    const k = known([row('L1', 'a.jpg', 'A', 'S1')], { A: { stored_path: '/home/ana/Photos/a.jpg' } });
    expect(placeFile(PHOTOS, file('a.jpg', 'S1'), k)).toEqual({ kind: 'unchanged', assetId: 'A' });
  });

  it('changed content at the only path of an asset: the same asset, every stage again', () => {
    const k = known([row('L1', 'a.jpg', 'A', 'S1')], { A: { stored_path: '/home/ana/Photos/a.jpg' } });
    expect(placeFile(PHOTOS, file('a.jpg', 'S2'), k)).toEqual({ kind: 'changed', assetId: 'A' });
  });

  it('changed content at one of two copies: the asset moves to the other copy, this one is new', () => {
    const k = known([row('L1', 'a.jpg', 'A', 'S1'), row('L2', 'a.jpg', 'A', 'S1')], { A: { stored_path: '/home/ana/Photos/a.jpg' } });
    expect(placeFile(PHOTOS, file('a.jpg', 'S2'), k)).toEqual({
      kind: 'new',
      leaving: { assetId: 'A', to: '/media/ana/Backup/a.jpg', libraryId: 'L2' },
    });
  });

  it('content known at a path now gone was moved there: the asset follows, nothing re-run', () => {
    const k = known([row('L1', 'old/a.jpg', 'A', 'S1')], { A: { stored_path: '/home/ana/Photos/old/a.jpg' } });
    expect(placeFile(PHOTOS, file('new/a.jpg', 'S1', [{ library: 'L1', rel: 'old/a.jpg' }]), k)).toMatchObject({
      kind: 'moved',
      assetId: 'A',
      from: { library_id: 'L1', rel_path: 'old/a.jpg' },
      relocate: { assetId: 'A', to: '/home/ana/Photos/new/a.jpg', libraryId: 'L1' },
    });
  });

  it('a move from another library of the workspace follows too; the asset keeps its file when that was another copy', () => {
    const rows = [row('L2', 'a.jpg', 'A', 'S1'), row('L1', 'x/a.jpg', 'A', 'S1')];
    const k = known(rows, { A: { stored_path: '/home/ana/Photos/x/a.jpg' } });
    expect(placeFile(PHOTOS, file('y/a.jpg', 'S1', [{ library: 'L2', rel: 'a.jpg' }]), k)).toMatchObject({
      kind: 'moved',
      from: { library_id: 'L2', rel_path: 'a.jpg' },
      relocate: null,
    });
  });

  it('content known at a path still there: a duplicate answered by the same asset', () => {
    const k = known([row('L2', 'a.jpg', 'A', 'S1')], { A: { stored_path: '/media/ana/Backup/a.jpg' } });
    expect(placeFile(PHOTOS, file('copy of a.jpg', 'S1'), k)).toMatchObject({ kind: 'duplicate', assetId: 'A' });
  });

  it('content of a deleted asset is new again', () => {
    const k = known([row('L1', 'a.jpg', 'A', 'S1')], { A: { stored_path: '/home/ana/Photos/a.jpg', live: false } });
    expect(placeFile(PHOTOS, file('b.jpg', 'S1'), k)).toMatchObject({ kind: 'new' });
  });
});

describe('dropPath: what a path gone means', () => {
  it('the only path of an asset: the asset leaves the index', () => {
    const k = known([row('L1', 'a.jpg', 'A', 'S1')], { A: { stored_path: '/home/ana/Photos/a.jpg' } });
    expect(dropPath(PHOTOS, 'a.jpg', k)).toEqual({ kind: 'remove', assetId: 'A' });
  });

  it('one of two copies, the one the asset was read from: the asset moves to the other', () => {
    const k = known([row('L1', 'a.jpg', 'A', 'S1'), row('L2', 'a.jpg', 'A', 'S1')], { A: { stored_path: '/home/ana/Photos/a.jpg' } });
    expect(dropPath(PHOTOS, 'a.jpg', k)).toEqual({ kind: 'kept', relocate: { assetId: 'A', to: '/media/ana/Backup/a.jpg', libraryId: 'L2' } });
    expect(dropPath(BACKUP, 'a.jpg', k)).toEqual({ kind: 'kept', relocate: null });
  });

  it('a path with no asset (refused before) is forgotten; an unknown path is nothing', () => {
    const k = known([{ library_id: 'L1', rel_path: 'notes.xyz', asset_id: null, sha256: '', size: 0, root: PHOTOS.path }], {});
    expect(dropPath(PHOTOS, 'notes.xyz', k)).toEqual({ kind: 'forget' });
    expect(dropPath(PHOTOS, 'never.jpg', k)).toEqual({ kind: 'unknown' });
  });
});

describe('scanOutcome: a root that is not there keeps everything', () => {
  it('a missing root is offline; an empty root is offline only while it had assets', () => {
    expect(scanOutcome({ rootMissing: true, rootEmpty: false }, 5)).toMatchObject({ kind: 'offline', reason: expect.stringMatching(/not there/) });
    expect(scanOutcome({ rootMissing: false, rootEmpty: true }, 5)).toMatchObject({ kind: 'offline', reason: expect.stringMatching(/empty/) });
    expect(scanOutcome({ rootMissing: false, rootEmpty: true }, 0)).toEqual({ kind: 'online' });
    expect(scanOutcome({ rootMissing: false, rootEmpty: false }, 5)).toEqual({ kind: 'online' });
  });
});

describe('RAW + JPEG stacks', () => {
  const jpeg = row('L1', 'dcim/IMG_1.JPG', 'A', 'J1');
  it('a RAW of the same shot as an indexed JPEG answers for its asset; with stacking off it is its own', () => {
    const k = known([jpeg], { A: { stored_path: '/home/ana/Photos/dcim/IMG_1.JPG' } });
    expect(placeFile(PHOTOS, file('dcim/img_1.cr2', 'R1'), k)).toEqual({ kind: 'stacked', assetId: 'A' });
    expect(placeFile({ ...PHOTOS, stackRaw: false }, file('dcim/img_1.cr2', 'R1'), k)).toEqual({ kind: 'new' });
    // Another folder, another name: no stack.
    expect(placeFile(PHOTOS, file('other/IMG_1.CR2', 'R1'), k)).toEqual({ kind: 'new' });
    expect(placeFile(PHOTOS, file('dcim/IMG_10.CR2', 'R1'), k)).toEqual({ kind: 'new' });
  });

  it("the JPEG of a RAW indexed alone takes the RAW's asset over", () => {
    const k = known([row('L1', 'dcim/IMG_1.CR2', 'R', 'R1')], { R: { stored_path: '/home/ana/Photos/dcim/IMG_1.CR2' } });
    expect(placeFile(PHOTOS, file('dcim/IMG_1.jpg', 'J1'), k)).toEqual({
      kind: 'stack-top',
      assetId: 'R',
      relocate: { assetId: 'R', to: '/home/ana/Photos/dcim/IMG_1.jpg', libraryId: 'L1' },
    });
  });

  it("a stacked RAW rewritten stays the stack's; its JPEG rewritten is the asset's new content", () => {
    const k = known([jpeg, row('L1', 'dcim/IMG_1.CR2', 'A', 'R1')], { A: { stored_path: '/home/ana/Photos/dcim/IMG_1.JPG' } });
    expect(placeFile(PHOTOS, file('dcim/IMG_1.CR2', 'R2'), k)).toEqual({ kind: 'unchanged', assetId: 'A' });
    expect(placeFile(PHOTOS, file('dcim/IMG_1.JPG', 'J2'), k)).toEqual({ kind: 'changed', assetId: 'A' });
  });

  it('the JPEG gone, the asset falls back to its RAW with new content; the RAW gone, nothing moves', () => {
    const k = known([jpeg, row('L1', 'dcim/IMG_1.CR2', 'A', 'R1')], { A: { stored_path: '/home/ana/Photos/dcim/IMG_1.JPG' } });
    expect(dropPath(PHOTOS, 'dcim/IMG_1.JPG', k)).toEqual({
      kind: 'kept',
      relocate: { assetId: 'A', to: '/home/ana/Photos/dcim/IMG_1.CR2', libraryId: 'L1' },
      content: { size: 10, sha256: 'R1' },
    });
    expect(dropPath(PHOTOS, 'dcim/IMG_1.CR2', k)).toEqual({ kind: 'kept', relocate: null });
  });
});
