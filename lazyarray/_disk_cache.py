"""The on-disk compile cache's files: a checked format, atomic writes and a size bound.

A cache entry outlives the process and the library version that wrote it, and other processes
write into the same directory at the same time. An executable that is truncated, corrupted or
built by another jax/jaxlib may crash the process when deserialised, so an entry is trusted only
when its header says it is whole and ours:

    magic (8 bytes) | tag length (2, little-endian) | tag (utf-8: jax, jaxlib, platform, device)
    | payload length (8) | sha256 of the payload (32) | payload

`read` returns None for anything else (the caller compiles again and `write` replaces the
entry). `write` writes a file of its own name in the entry's directory and renames it over the
entry (atomic on POSIX), so two processes storing one entry at once leave one whole file and a
reader never sees half of one. The directory is kept under `LAZYARRAY_CACHE_BYTES` by deleting
the least recently used entries (a hit refreshes an entry's modification time). Finding them
walks the whole directory (a stat per file: tens of milliseconds in a per-user cache of thousands
of entries, on the compile thread), so a process walks at its first write, then only when its
own writes since the last walk could pass the bound or a minute has gone by (other processes'
writes are seen then; each of them bounds its own writes the same way); the small per-command files under `manifests/` (`_prefetch`: what a command's
last run used and learnt, and how far its work grew the heap, rewritten at each run's exit) count and go by age too, so a stream of
distinct commands cannot grow the directory past the bound. A directory that cannot be written (read-only, a file in its place, no
permission) never breaks the user's program: the first failed write warns once (RuntimeWarning)
and later writes under that root are skipped, so the process runs on with in-memory programs.
No jax import: the payload's bytes come from `_runtime`.
"""
from __future__ import annotations

import hashlib
import os
import struct
import threading
import time
import warnings

from . import _config

MAGIC = b"LZXLA\x00\x01\n"
SUFFIX = ".xla"
COMMAND_FILES = ("manifests", (".txt", ".costs", ".heap"))  # (directory, suffixes) of `_prefetch`'s files
_HEAD = struct.Struct("<H")
_SIZE = struct.Struct("<Q")
_STALE_TMP_SECONDS = 3600  # a temporary file this old was left by a process that died mid-write
_unwritable_roots = set()  # cache roots a write failed under: warned about once, then skipped


def encode(payload: bytes, tag: str) -> bytes:
    t = tag.encode()
    return b"".join((MAGIC, _HEAD.pack(len(t)), t, _SIZE.pack(len(payload)),
                     hashlib.sha256(payload).digest(), payload))


def decode(data: bytes, tag: str):
    """The payload of an entry written by `encode` with this tag, or None if it is not one."""
    if not data.startswith(MAGIC):
        return None
    pos = len(MAGIC)
    try:
        (n,) = _HEAD.unpack_from(data, pos)
        pos += _HEAD.size
        if data[pos:pos + n] != tag.encode():
            return None  # another jax/jaxlib, platform or device wrote it
        pos += n
        (size,) = _SIZE.unpack_from(data, pos)
        pos += _SIZE.size
    except struct.error:  # truncated inside the header
        return None
    digest, payload = data[pos:pos + 32], data[pos + 32:]
    if len(payload) != size or hashlib.sha256(payload).digest() != digest:
        return None  # truncated or corrupted
    return payload


def read(path, tag):
    """The payload stored at `path` for `tag`, or None (absent, partial, corrupt, foreign)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    payload = decode(data, tag)
    if payload is not None:
        try:
            os.utime(path)  # recently used: evicted last
        except OSError:
            pass
    return payload


def write(path, payload, tag):
    """Store `payload` at `path` atomically, then bound the directory's size. A cache that
    cannot be written (disk full, read-only) costs a compile next time, never the user's call:
    returns False then."""
    root = _config.cache_dir
    if root in _unwritable_roots:
        return False
    directory = os.path.dirname(path)
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.{time.monotonic_ns()}.tmp"
    data = encode(payload, tag)
    try:
        os.makedirs(directory, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        _note_unwritable(root, exc)
        return False
    if _config.cache_dir and _config.cache_max_bytes:
        _bound_after_write(_config.cache_dir, _config.cache_max_bytes, len(data))
    return True


_WALK_EVERY_SECONDS = 60.0
_since_walk = {}  # root -> [bytes there at the last walk + bytes this process wrote since, when walked]
_since_walk_lock = threading.Lock()


def _bound_after_write(root, max_bytes, written):
    """`enforce_bound` after a write of `written` bytes, unless this process's count says the
    directory is still under the bound and its last walk is recent (see the module docstring).
    The count errs high (a rewritten entry counts twice), never low, for this process's writes."""
    now = time.monotonic()
    with _since_walk_lock:
        known = _since_walk.get(root)
        if known is not None and known[0] + written <= max_bytes and now - known[1] < _WALK_EVERY_SECONDS:
            known[0] += written
            return
        _since_walk[root] = [max_bytes, now]  # (a writer meanwhile walks too: its count is full)
    total = enforce_bound(root, max_bytes)
    with _since_walk_lock:
        _since_walk[root] = [total, now]


def _note_unwritable(root, exc):
    """Warn once that the cache under `root` cannot be written, and stop trying there."""
    if root in _unwritable_roots:
        return
    _unwritable_roots.add(root)
    warnings.warn(f"lazyarray: the on-disk compile cache {root!r} cannot be written ({exc}); running "
                  "without it (programs compile again in the next process). Set LAZYARRAY_CACHE_DIR to a "
                  "writable directory, or to 0 to switch the disk cache off.", RuntimeWarning, stacklevel=2)


def _entries(root):
    """(mtime, size, path) of every entry and per-command file under root; stale temporary
    files are removed."""
    out = []
    now = time.time()
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            try:
                st = os.stat(p)
            except OSError:  # deleted by another process meanwhile
                continue
            if name.endswith(SUFFIX) or (os.path.basename(dirpath) == COMMAND_FILES[0]
                                         and name.endswith(COMMAND_FILES[1])):
                out.append((st.st_mtime, st.st_size, p))
            elif name.endswith(".tmp") and now - st.st_mtime > _STALE_TMP_SECONDS:
                try:
                    os.unlink(p)
                except OSError:
                    pass
    return out


def enforce_bound(root, max_bytes):
    """Delete the least recently used entries until the entries under root total at most
    max_bytes. Returns the bytes left."""
    entries = _entries(root)
    total = sum(size for _, size, _ in entries)
    if total <= max_bytes:
        return total
    for _, size, p in sorted(entries):
        try:
            os.unlink(p)
        except OSError:  # another process evicted it first
            pass
        total -= size
        if total <= max_bytes:
            break
    return total
