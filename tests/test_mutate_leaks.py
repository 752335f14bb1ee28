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


def test_code_the_repository_itself_duplicates_is_no_leak(tmp_path):
    # freezegun 1.5.1 has two identical `move_to` methods: a mutant of one left the other, and
    # the scan refused the bundle ("contains the pristine code")
    method = "    def move_to(self, t):\n        self.at = t\n"
    pristine = f"class A:\n{method}\n\nclass B:\n{method}"
    mutant = pristine.replace("self.at = t", "self.at = -t", 1)
    origin, snap = tmp_path / "origin", tmp_path / "snap"
    for root, text in ((origin, pristine), (snap, mutant)):
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "mod.py").write_text(text)
        (root / "pkg" / "twin.py").write_text(method)  # the repository's own copy elsewhere
    def scan():
        return scan_snapshot(snap, {"pkg/mod.py": pristine}, [method], [], origin)

    assert scan() == []
    # a copy beyond the repository's own is a leak: in the changed file, and in any other
    (snap / "pkg" / "mod.py").write_text(mutant + method)
    (snap / "pkg" / "twin.py").write_text(method * 2)
    assert scan() == ["pkg/mod.py: contains the pristine code", "pkg/twin.py: contains the pristine code"]
