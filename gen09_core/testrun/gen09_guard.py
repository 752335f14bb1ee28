"""gen09's guardian (run as a script by gen09's own interpreter): when gen09 ends, however it
ends — a SIGKILL, which no handler sees, included — it kills every process still in a session
gen09 started and had not ended.

Every test process and helper gen09 starts leads a session of its own. gen09 writes ``+SID``
on the guardian's standard input when it starts one and ``-SID`` once it has ended it; the
input's end is gen09's end (the pipe's writing end is gen09's alone). A test process gen09
started dies with it (``PR_SET_PDEATHSIG``), but what that process started (a shell's
``sleep``, a test's server) would run on: the guardian kills it. It ignores the terminal's
signals, so a Ctrl-C reaches gen09 first. Standard library only.
"""

import contextlib
import os
import signal
import sys
from pathlib import Path


def in_sessions(sessions) -> list[int]:
    """The live (not zombie) processes of the ``sessions`` (session ids), read from Linux's
    ``/proc``; none where there is no ``/proc``."""
    found = []
    for entry in Path("/proc").iterdir() if sessions and Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()  # state, ppid, pgrp, session
        except (OSError, IndexError):
            continue
        if fields[0] not in "ZX" and int(fields[3]) in sessions:
            found.append(int(entry.name))
    return found


def kill_sessions(sessions) -> None:
    """SIGKILL every process of the ``sessions`` (and each one's process group, where there
    is no ``/proc``), again until none is left: a process may fork while it is being killed."""
    for sid in sessions:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(sid, signal.SIGKILL)
    for _ in range(100):
        members = in_sessions(sessions)
        if not members:
            return
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def main() -> None:
    """Note the sessions gen09 reports until its end of the pipe closes, then end what is left."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    live: set[int] = set()
    for line in sys.stdin.buffer:
        with contextlib.suppress(ValueError):
            (live.add if line.startswith(b"+") else live.discard)(int(line[1:]))
    kill_sessions(live)


if __name__ == "__main__":
    main()
