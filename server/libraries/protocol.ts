// Messages between the library sync (service process) and its file-system thread.

export interface LibraryRef {
  id: string;
  workspace: string;
  root: string;
  exclude: string[];
}

export type FsJob =
  /** Walk the library (or one folder of it, `under`), report what is new or changed, and what is gone. */
  | { type: 'scan'; job: number; library: LibraryRef; under: string }
  /** Look at these paths only (from the watcher): files are reported, folders walked, missing ones listed. */
  | { type: 'check'; job: number; library: LibraryRef; paths: string[] }
  /** Which of these folders are there (the libraries' roots: drives plugged in or not). */
  | { type: 'present'; job: number; paths: string[] }
  /** A batch of reports was recorded (the thread sends at most a few batches ahead). */
  | { type: 'ack'; job: number };

/** A job that looks at the file system. */
export type WorkRequest = Exclude<FsJob, { type: 'ack' }>;

export type FileReport =
  /**
   * New or changed, settled, read and hashed. `gone`: the paths the workspace's libraries know with
   * the same content that are no longer there (the file was moved from one of them).
   */
  | { rel: string; kind: 'file'; size: number; mtimeMs: number; sha256: string; mime: string; ext: string; gone: Array<{ library: string; rel: string }> }
  /** Still being written (modified moments ago, or changed while read): looked at again shortly. */
  | { rel: string; kind: 'unsettled'; size: number; mtimeMs: number }
  /** Not indexed, with why (unsupported or legacy type, empty, content not matching its name, a link leading out). */
  | { rel: string; kind: 'refused'; size: number; mtimeMs: number; reason: string }
  /** A file or folder that cannot be read (permissions, I/O error). */
  | { rel: string; kind: 'unreadable'; reason: string };

export type FsMessage =
  | { type: 'files'; job: number; files: FileReport[] }
  | { type: 'progress'; job: number; walked: number }
  /** `missing`: known paths (under what was looked at) that are gone; `root`: the library's root was not there. */
  | { type: 'done'; job: number; walked: number; missing: string[]; rootMissing: boolean; rootEmpty: boolean }
  /** The answer to `present`, in the order asked. */
  | { type: 'present'; job: number; present: boolean[] }
  | { type: 'failed'; job: number; message: string };

export interface FsThreadData {
  dbFile: string;
  /** Real paths of the allowed roots: symbolic links leading elsewhere are not followed. */
  roots: string[];
  /** A file modified less than this long ago is still being written. */
  settleMs: number;
}
