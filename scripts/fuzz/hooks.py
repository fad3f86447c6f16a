"""Schemathesis hooks for `npm run fuzz:api`: a refused request (4xx or 5xx) must write nothing.

Before every call the state of the data folder is taken (every table of the SQLite database, each
row hashed, and every file with its size); after a refused answer it is taken again and must be the
same. `api_keys.last_used_at` changes on every authenticated call and is left out. After an accepted
202 (work started in the background), and after a library added or asked to scan (its scan runs in
the background), the next call waits until the state has stopped changing, so that work is not
blamed on the request after it: a library's scan can spend longer than any quiet spell walking and
hashing before it writes, so the wait also lasts while a library's status is `scanning`.
"""

import hashlib
import os
import sqlite3
import time

import schemathesis

DATA = os.environ["MI_FUZZ_DATA"]
DB = os.path.join(DATA, "media-index.sqlite")
VOLATILE = {"api_keys": {"last_used_at"}}
SKIP_FILES = ("media-index.sqlite", "media-index.sqlite-wal", "media-index.sqlite-shm", "indexer.lock", "service.json")

_before: dict[int, dict[str, str]] = {}
_settle = False


def _tables(con: sqlite3.Connection) -> dict[str, str]:
    out = {}
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    for name in names:
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{name}")') if r[1] not in VOLATILE.get(name, set())]
        if not cols:
            continue
        rows = sorted(repr(r) for r in con.execute(f'SELECT {", ".join(chr(34) + c + chr(34) for c in cols)} FROM "{name}"'))
        h = hashlib.sha256()
        for r in rows:
            h.update(r.encode())
        out[f"table {name}"] = f"{len(rows)} rows {h.hexdigest()[:16]}"
    return out


def state() -> dict[str, str]:
    con = sqlite3.connect(f"file:{DB}?mode=ro", uri=True, timeout=30)
    try:
        out = _tables(con)
    finally:
        con.close()
    for root, _dirs, files in os.walk(DATA):
        for f in files:
            p = os.path.join(root, f)
            rel = os.path.relpath(p, DATA)
            if rel in SKIP_FILES:
                continue
            try:
                out[f"file {rel}"] = str(os.path.getsize(p))
            except FileNotFoundError:
                pass
    return out


def _scanning() -> bool:
    con = sqlite3.connect(f"file:{DB}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute("SELECT count(*) FROM libraries WHERE status = 'scanning'").fetchone()[0] > 0
    finally:
        con.close()


def _settled() -> None:
    """Until no library is scanning and nothing has changed for a second (at most 30 s)."""
    last, since = state(), time.monotonic()
    deadline = since + 30
    while time.monotonic() < deadline:
        time.sleep(0.2)
        now = state()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= 1.0 and not _scanning():
            return


@schemathesis.hook
def before_call(context, case, kwargs):
    global _settle
    if _settle:
        _settled()
        _settle = False
    _before[id(case)] = state()


@schemathesis.hook
def after_call(context, case, response):
    global _settle
    # 202: work started in the background; a library added (201) or asked to scan starts its scan.
    if response.status_code == 202 or (response.status_code < 300 and case.method.upper() == "POST" and "/libraries" in case.path):
        _settle = True


@schemathesis.check
def refused_request_writes_nothing(ctx, response, case):
    before = _before.pop(id(case), None)
    if before is None or response.status_code < 400:
        return None
    after = state()
    if after != before:
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        raise AssertionError(f"Refused with {response.status_code}, yet changed: {', '.join(changed[:8])}")
    return None
