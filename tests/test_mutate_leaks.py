"""mutate.leaks: the anti-contamination scan of a learner snapshot."""

import base64
import os

from gen09_core.mutate.leaks import is_credential, scan_snapshot

_BODY = base64.b64encode(os.urandom(48)).decode()  # 64 characters of key material


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
    (snap / "key.txt").write_text(f"-----BEGIN RSA PRIVATE KEY-----\n{_BODY}\n-----END RSA PRIVATE KEY-----\n")
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


def test_a_private_key_is_its_pem_block_not_the_name_of_its_header():
    # ecdsa 0.19.0: keys.py looks for b"-----BEGIN EC PRIVATE KEY-----" and README.md names it;
    # both counted as credentials, README.md (which setup.py reads) left every bundle and the
    # image could not install the project; a mutant of keys.py was refused outright
    named = ('private_key_index = string.find(b"-----BEGIN EC PRIVATE KEY-----")\n',
             '`"-----BEGIN EC PRIVATE KEY-----"` base64-encoded format, and the DER format\n')
    assert not any(is_credential("x.py", text.encode()) for text in named)
    keys = (f"-----BEGIN EC PRIVATE KEY-----\n{_BODY}\n-----END EC PRIVATE KEY-----\n",
            f'key = (\n    "-----BEGIN EC PRIVATE KEY-----\\n"\n    "{_BODY}\\n"\n)\n',
            f"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00FF\n\n{_BODY}\n")
    assert all(is_credential("x.py", text.encode()) for text in keys)


def test_the_suites_own_keys_are_restored_by_the_verifier_and_other_credentials_left_out(tmp_path):
    # PyJWT 2.9.0: its tests read tests/keys/*.priv and *.pub.pem; all 7 were left out of the
    # bundles as credentials, and all 16 bundles failed their oracle run
    import json
    import shutil

    from tests.helpers import MUTATE_FIXTURE, run_gen09

    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    key = f"-----BEGIN EC PRIVATE KEY-----\n{_BODY}\n-----END EC PRIVATE KEY-----\n"
    (repo / "tests" / "keys").mkdir()
    (repo / "tests" / "keys" / "server.priv").write_text(key)
    (repo / "tests" / "keys" / "server.pub.pem").write_text(f"-----BEGIN PUBLIC KEY-----\n{_BODY}\n")
    (repo / ".env").write_text("TOKEN=xoxb-1234567890-abcdef\n")
    (repo / "tests" / "check_keys.py").write_text(
        "from pathlib import Path\n\nfrom shop.pricing import with_tax\n\n\n"
        "def test_keys_are_there():\n    keys = Path(__file__).parent / 'keys'\n"
        "    assert (keys / 'server.priv').read_text().startswith('-----BEGIN EC PRIVATE KEY')\n"
        "    assert (keys / 'server.pub.pem').exists() and with_tax(100) == 120\n")
    out = tmp_path / "out"
    done = run_gen09("mutate", repo, "--out", out, "--max-mutants", "12", "--seed", "3")
    assert done.returncode == 0, done.stderr
    bundle = next(p for p in (out / "tasks").iterdir()
                  if "tests/check_keys.py::test_keys_are_there" in (p / "tests" / "tests.txt").read_text())
    snapshot, hidden = bundle / "environment" / "repo", bundle / "tests" / "hidden"
    assert not (snapshot / "tests" / "keys" / "server.priv").exists() and (hidden / "tests" / "keys" / "server.priv").exists()
    assert (snapshot / "tests" / "keys" / "server.pub.pem").exists()  # a public key is no credential
    assert not (snapshot / ".env").exists() and not (hidden / ".env").exists()
    adaptations = (bundle / "task.toml").read_text()
    assert "restored by the verifier, not in the snapshot: 1" in adaptations and "left out of the snapshot: 1" in adaptations
    verified = run_gen09("verify", bundle, "--json")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["ok"] == 1
