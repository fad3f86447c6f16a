// Global set-up of every test suite: marks this run's environment, which every process the tests
// start inherits (servers, indexer processes, ffmpeg, Chromium), and fails the run when one of them
// outlives it: a test must stop what it starts, even when it fails. An orphan whose parent died is
// found too (by the mark, not by parentage), and is killed so that it cannot outlive the report.
// The same for files: the run's temporary folder is one of its own (TMPDIR, inherited likewise),
// and whatever is left in it at the end fails the run, then goes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MARK = 'MEDIA_INDEX_TEST_RUN';

/** Processes other than this one whose environment carries `mark` (Linux: /proc; elsewhere none). */
function marked(mark: string): Array<{ pid: number; command: string }> {
  if (process.platform !== 'linux') return [];
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${MARK}=${mark}`)) continue;
      if (/^\S+ \(.*\) Z/s.test(fs.readFileSync(`/proc/${pid}/stat`, 'latin1'))) continue; // exited, not yet reaped
      found.push({ pid, command: fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim().slice(0, 300) });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * What is kept in the temporary folder by design, left alone: tsx's cache of compiled modules, what
 * Chromium and its audio client leave behind, and tesseract's language folder made by tests that
 * read text in their own process (the app's indexer processes make it under the data folder).
 */
const OTHERS = /^(tsx-|org\.chromium\.|pulse-|media-index-tessdata-)/;

export default function setup(): () => Promise<void> {
  const mark = crypto.randomUUID();
  process.env[MARK] = mark;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-test-run-'));
  process.env.TMPDIR = tmp;
  // ONNX Runtime's telemetry off for the models the tests load in their own processes (the app's
  // processes turn it off themselves: test/privacy.test.ts).
  process.env.ORT_DISABLE_TELEMETRY = '1';
  return async () => {
    // Processes asked to stop in an afterAll may still be shutting down (a server stops its indexers).
    let left = marked(mark);
    for (let waited = 0; left.length && waited < 10_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      left = marked(mark);
    }
    const problems: string[] = [];
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (left.length)
      problems.push(`${left.length} process(es) started by the tests outlived them (killed now):\n${left.map((p) => `  ${p.pid} ${p.command}`).join('\n')}`);
    const files = fs.readdirSync(tmp).filter((f) => !OTHERS.test(f));
    fs.rmSync(tmp, { recursive: true, force: true });
    if (files.length) problems.push(`${files.length} temporary file(s) or folder(s) outlived the tests (removed now): ${files.join(', ')}`);
    if (!problems.length) return;
    // A teardown's error is printed but does not fail the run; the exit code does.
    process.exitCode = 1;
    throw new Error(problems.join('\n'));
  };
}
