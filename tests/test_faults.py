"""Fault campaign against real ``gen09 apply --write`` processes: signal kills at random
points of multi-file writes, concurrent writer pairs, and write failures from the kernel.
After every fault: the targets are all old or all new (once the next command recovered),
no temp file, no created folder of an undone write, no journal."""

import os
import random
import resource
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.helpers import run_gen09
from tests.writes import (
    batch,
    expected_new,
    leftovers,
    make_repo,
    reset,
    targets_state,
    write_batch,
)

KILLS = 50
PAIRS = 40


def gen09(*args, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "gen09_core", *map(str, args)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=os.environ.copy(), **kwargs)


def wait_for(proc, manifest) -> None:
    """Return once ``manifest`` exists (the write has begun) or ``proc`` has ended."""
    while proc.poll() is None and not manifest.exists():
        time.sleep(0.0005)


def test_signal_kills_at_random_points_of_a_multi_file_write(tmp_path):
    root = tmp_path / "repo"
    original = make_repo(root, files=10, lines=2000)
    new = expected_new(original)
    candidates = write_batch(tmp_path / "c.json", batch(original))
    manifest = root / ".git" / "gen09" / "journal.json"
    rng = random.Random(11)
    tally, reach = {}, 0.02  # reach: how long after the journal appears a kill may come
    for number in range(KILLS):
        sig = signal.SIGKILL if number % 2 else signal.SIGTERM
        proc = gen09("apply", candidates, "--repo", root, "--write", "m")
        if number % 5 == 0:  # anywhere in the process's life
            time.sleep(rng.uniform(0, 0.4))
        else:  # inside the write: after the journal appeared
            wait_for(proc, manifest)
            time.sleep(rng.uniform(0, reach))
        proc.send_signal(sig)
        stderr = proc.communicate()[1]
        left_journal = manifest.exists()
        found = targets_state(root, original, new).split(":")[0]  # "mixed" before recovery?
        if "rolled back" in stderr:
            assert proc.returncode == -signal.SIGTERM and "interrupted by SIGTERM" in stderr
            assert not left_journal
        recovery = run_gen09("apply", candidates, "--repo", root)
        assert recovery.returncode in (0, 1), recovery.stderr  # 1: the write had landed
        assert ("completed the rollback of an interrupted --write" in recovery.stderr) == left_journal
        state = targets_state(root, original, new)
        assert state in ("old", "new"), (number, sig, state, stderr)
        assert leftovers(root) == [], number
        how = (f"journal left ({found} files), rolled back by the next command" if left_journal else
               "rolled back in process" if "rolled back" in stderr else
               f"exit {proc.returncode}, {state}")
        key = f"{signal.Signals(sig).name}: {how}"
        tally[key] = tally.get(key, 0) + 1
        if state == "new":
            reset(root, original, new)
        if number % 5:  # aim the next kills where this machine's writes are
            reach = reach * 0.7 if proc.returncode == 0 else min(reach * 1.1, 0.5)
    print(f"\n{KILLS} kills:", tally)
    interrupted_writes = sum(n for k, n in tally.items() if "rolled back" in k)
    assert interrupted_writes >= 5, tally  # the kills did land inside writes


def test_concurrent_writers_never_lose_an_edit(tmp_path):
    root = tmp_path / "repo"
    original = make_repo(root, files=3, lines=40)
    a = write_batch(tmp_path / "a.json", batch(original, "by-a", line=1, create=False))
    b = write_batch(tmp_path / "b.json", batch(original, "by-b", line=9, create=False))
    tally = {}
    for number in range(PAIRS):
        for rel, data in original.items():
            (root / rel).write_bytes(data)
        procs = {tag: gen09("apply", "-", "--repo", root, "--write", "m", stdin=subprocess.PIPE)
                 for tag in ("by-a", "by-b")}
        time.sleep(0.25)  # both start-ups done: each waits for its candidates on stdin
        order = [("by-a", a), ("by-b", b)][::1 if number % 2 else -1]
        for tag, candidates in order:
            procs[tag].stdin.write(candidates.read_text())
        for tag, _ in order:
            procs[tag].stdin.close()
        results = {tag: (p.wait(), p.stderr.read()) for tag, p in procs.items()}
        for tag, (code, stderr) in results.items():
            assert code in (0, 3), (tag, code, stderr)
            if code == 3:
                assert "changed on disk since it was read" in stderr or \
                    "changed by another process" in stderr, stderr
                assert any(rel in stderr for rel in original), stderr
            for rel in original:
                landed = f" {tag}\n".encode() in (root / rel).read_bytes()
                assert landed == (code == 0), (number, tag, rel, code, stderr)
        assert any(code == 0 for code, _ in results.values())
        assert leftovers(root) == []
        key = "+".join(str(code) for code, _ in results.values())
        tally[key] = tally.get(key, 0) + 1
    print(f"\n{PAIRS} writer pairs (exit codes):", tally)


def _limit_file_size(limit):
    def preexec():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    return preexec


def test_a_write_the_kernel_refuses_mid_way_is_rolled_back(tmp_path):
    """RLIMIT_FSIZE makes the kernel fail the write(2) of the big new file (EFBIG): a real
    failure at the write call, after the journal and the other files were written."""
    root = tmp_path / "repo"
    original = make_repo(root, files=3, lines=20)
    data = batch(original)
    data["candidates"][0]["edits"].append({"file": "pkg/big.txt", "content": "x" * 200_000})
    candidates = write_batch(tmp_path / "c.json", data)
    done = subprocess.run([sys.executable, "-m", "gen09_core", "apply", str(candidates), "--repo",
                           str(root), "--write", "m"], capture_output=True, text=True,
                          preexec_fn=_limit_file_size(100_000))
    assert done.returncode == 3, done.stderr
    assert "File too large" in done.stderr and "rolled back" in done.stderr
    assert len(done.stderr.strip().split("\n")) == 1 and "Traceback" not in done.stderr
    assert targets_state(root, original, expected_new(original)) == "old"
    assert not (root / "pkg/big.txt").exists() and leftovers(root) == []


def test_a_full_temp_folder_for_the_linter_is_exit_3(calc_repo, tmp_path):
    candidates = write_batch(tmp_path / "c.json", {"version": 1, "candidates": [
        {"edits": [{"file": "calc/ops.py", "search": "return a - b", "replace": "return a + b"}]},
        {"edits": [{"file": "calc/big.py", "content": "X = 1\n" * 20_000}]}]})
    done = subprocess.run([sys.executable, "-m", "gen09_core", "apply", str(candidates), "--repo",
                           str(calc_repo)], capture_output=True, text=True,
                          preexec_fn=_limit_file_size(50_000))
    assert done.returncode == 3, done.stderr
    assert "cannot prepare the lint files in the temp folder: File too large" in done.stderr
    assert len(done.stderr.strip().split("\n")) == 1


FAILING_ROLLBACK = textwrap.dedent("""
    import errno, os, sys
    from gen09_core import journal, write
    from gen09_core.cli import main

    real_place, real_write_file, placed = write._place, journal.write_file, []

    def place(root, target):  # the disk fails at the last file, then is full for the rollback
        if len(placed) == 4:
            raise OSError(errno.EIO, os.strerror(errno.EIO), target.path)
        placed.append(target)
        real_place(root, target)

    def write_file(path, data, mode=None):
        if len(placed) == 4:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real_write_file(path, data, mode)

    write._place, journal.write_file = place, write_file
    main(sys.argv[1:])
""")


def test_a_failed_rollback_is_exit_3_naming_every_file_and_the_next_command_finishes_it(tmp_path):
    root = tmp_path / "repo"
    original = make_repo(root)
    new = expected_new(original)
    candidates = write_batch(tmp_path / "c.json", batch(original))
    done = subprocess.run([sys.executable, "-c", FAILING_ROLLBACK, "apply", str(candidates),
                           "--repo", str(root), "--write", "m"], capture_output=True, text=True)
    assert done.returncode == 3, done.stderr
    assert len(done.stderr.strip().split("\n")) == 1 and "Traceback" not in done.stderr
    error = done.stderr.strip()
    assert error.startswith("gen09: error: write failed (Input/output error); rollback incomplete")
    for rel in original:
        assert f"{rel}: NEW bytes, could not restore (No space left on device)" in error
    assert "pkg/new/deep/made.txt: removed (it was new)" in error
    assert targets_state(root, original, new).startswith("mixed")
    recovery = run_gen09("apply", candidates, "--repo", root)
    assert "completed the rollback of an interrupted --write" in recovery.stderr
    assert targets_state(root, original, new) == "old" and leftovers(root) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_each_stop_signal_rolls_the_write_back_and_still_ends_the_process(tmp_path, sig):
    root = tmp_path / "repo"
    original = make_repo(root, files=10, lines=2000)
    new = expected_new(original)
    candidates = write_batch(tmp_path / "c.json", batch(original))
    manifest = root / ".git" / "gen09" / "journal.json"
    for _ in range(20):  # until one signal lands inside the write
        proc = gen09("apply", candidates, "--repo", root, "--write", "m")
        wait_for(proc, manifest)
        proc.send_signal(sig)
        stderr = proc.communicate()[1]
        if "rolled back" in stderr:
            break
        reset(root, original, new)
    assert proc.returncode == -sig, stderr
    assert f"gen09: interrupted by {signal.Signals(sig).name}: the write was rolled back" in stderr
    assert targets_state(root, original, new) == "old" and leftovers(root) == []
