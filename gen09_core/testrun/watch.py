"""Counting a running pytest job's finished tests from its record, for progress on long runs.

gen09's plugin appends one line per test phase to the job's record (``outcomes.jsonl`` in its
meta folder, see ``jobs.job_folders``); a test has finished when its teardown phase is
written, and the ``collected`` line says how many tests the session holds. A whole pristine
suite can run for many minutes: ``watching`` reports those two numbers while it runs.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from pathlib import Path

WATCH_EVERY = 5.0  # seconds between two looks at the record


class RecordCount:
    """Reads a growing record incrementally: ``finished`` tests of ``total`` collected (None
    until the session collected)."""

    def __init__(self, path: Path):
        self.path, self.offset, self.pending = Path(path), 0, b""
        self.finished, self.total = 0, None

    def read(self) -> bool:
        """Take in what was appended since the last call; True when a count changed."""
        with contextlib.suppress(OSError), open(self.path, "rb") as record:
            record.seek(self.offset)
            new = record.read()
            self.offset += len(new)
            lines = (self.pending + new).split(b"\n")
            self.pending = lines.pop()  # a line not yet written whole
            before = (self.finished, self.total)
            for line in lines:
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    if entry.get("kind") == "collected":
                        self.total = entry.get("items")
                    elif entry.get("kind") == "phase" and entry.get("when") == "teardown":
                        self.finished += 1
            return (self.finished, self.total) != before
        return False


@contextlib.contextmanager
def watching(path: Path, report: Callable[[int, int | None], None], every: float = WATCH_EVERY):
    """While the block runs, call ``report(finished, total)`` each time the record at ``path``
    (which may not exist yet, or ever: a job run elsewhere) shows a new count, looking every
    ``every`` seconds."""
    count, stop = RecordCount(path), threading.Event()

    def watch() -> None:
        while not stop.wait(every):
            if count.read():
                report(count.finished, count.total)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield count
    finally:
        stop.set()
        thread.join()
