"""Typed progress events and artifact-bound receipts, written as JSONL in the run folder.

Every substantive stage emits an :class:`Event`; every artifact it leaves (the resolved
config, the baseline, a mutant record, a bundle) gets a :class:`Receipt` carrying the
artifact's SHA-256 digest. Failures carry one of :data:`FAILURE_CLASSES`.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from attrs import field, frozen

from gen09_core.hashing import sha256_file, sha256_tree
from gen09_core.mutate.config import CONVERTER

FAILURE_CLASSES = ("source_eligibility", "infrastructure", "oracle", "verifier", "solver")


@frozen
class Event:
    """One progress event: the stage, what happened, the subject and free details."""

    stage: str
    status: str  # "started" | "done" | "skipped" | "failed" | "progress"
    subject: str = ""
    failure_class: str | None = None
    detail: dict = field(factory=dict)
    total: int | None = None
    completed: int | None = None

    def __attrs_post_init__(self):
        if self.failure_class is not None and self.failure_class not in FAILURE_CLASSES:
            raise ValueError(f"unknown failure class {self.failure_class!r}")


@frozen
class Receipt:
    """Proof that a stage produced an artifact: its path, digest and inputs' digests."""

    stage: str
    artifact: str
    digest: str
    inputs: dict = field(factory=dict)
    status: str = "ok"
    failure_class: str | None = None


class Journal:
    """Appends events and receipts to ``events.jsonl`` / ``receipts.jsonl`` (thread-safe)
    and forwards each event to an optional listener (the progress bar)."""

    def __init__(self, out: Path, listener=None):
        self.out = Path(out)
        self.listener = listener
        self._lock = threading.Lock()

    def event(self, stage: str, status: str, subject: str = "", **kwargs) -> Event:
        """Record and forward one event."""
        ev = Event(stage, status, subject, **kwargs)
        self._append("events.jsonl", {"time": round(time.time(), 3), **CONVERTER.unstructure(ev)})
        if self.listener is not None:
            self.listener(ev)
        return ev

    def receipt(self, stage: str, artifact: Path, inputs: dict | None = None, status: str = "ok",
                failure_class: str | None = None) -> Receipt:
        """Record a receipt bound to the artifact's current digest."""
        artifact = Path(artifact)
        digest = sha256_tree(artifact) if artifact.is_dir() else sha256_file(artifact)
        inside = artifact.is_relative_to(self.out)
        rel = artifact.relative_to(self.out).as_posix() if inside else str(artifact)
        rec = Receipt(stage, rel, digest, dict(inputs or {}), status, failure_class)
        self._append("receipts.jsonl", CONVERTER.unstructure(rec))
        return rec

    def _append(self, name: str, record: dict) -> None:
        line = json.dumps(record, sort_keys=True, default=str) + "\n"
        with self._lock, open(self.out / name, "a", encoding="utf-8") as handle:
            handle.write(line)
