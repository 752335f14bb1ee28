"""mutate.leaks: the anti-contamination scan of a learner snapshot."""

from gen09_core.mutate.leaks import scan_snapshot


def test_leak_scan_finds_every_kind_of_trace(tmp_path):
    snap = tmp_path / "snap"
    (snap / ".git").mkdir(parents=True)
    (snap / "pkg" / "__pycache__").mkdir(parents=True)
    (snap / "pkg" / "mod.py").write_text("def f():\n    return 2\n")
    (snap / "pkg" / "mod.py.orig").write_text("def f():\n    return 1\n")
    (snap / "pkg" / "copy.txt").write_text("notes: def f():\n    return 1\n")
    (snap / "tests").mkdir()
    (snap / "tests" / "test_mod.py").write_text("x = 1\n")
    (snap / ".env").write_text("TOKEN=1\n")
    (snap / "key.txt").write_text("-----BEGIN RSA PRIVATE KEY-----\n")
    problems = scan_snapshot(snap, {"pkg/mod.py": "def f():\n    return 1\n"},
                             ["def f():\n    return 1\n"], ["tests/test_mod.py"])
    joined = "\n".join(problems)
    for needle in (".git: VCS", "__pycache__: VCS", "mod.py.orig: backup", "identical to the pristine",
                   "copy.txt: contains the pristine", "tests/test_mod.py: hidden", ".env: credential",
                   "key.txt: credential"):
        assert needle in joined, needle
