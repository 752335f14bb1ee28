"""A repository that ships backup or swap files (uritemplate 4.1.1's sdist holds
``tests/.test_uritemplate.py.swp``) still exports its tasks: such files are left out of every
snapshot, counted in the task's adaptations, and never reach a learner."""

import json
import shutil
import tomllib

from tests.helpers import MUTATE_FIXTURE, mutate_fixture_copy


def test_backup_files_are_left_out_of_the_snapshot_not_a_reason_to_refuse_it(tmp_path):
    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    (repo / "tests" / ".check_cart.py.swp").write_bytes(b"b0VIM 9.0\x00" + (repo / "tests" / "check_cart.py").read_bytes())
    for source in (repo / "shop").glob("*.py"):  # a backup holds every pristine entity
        shutil.copy(source, source.with_name(source.name + ".orig"))
    out, done = mutate_fixture_copy(tmp_path, repo, max_mutants=6)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["exported"] > 0 and summary["failures"].get("export_failed", []) == [], summary
    bundles = sorted(p for p in (out / "tasks").iterdir() if p.is_dir())
    assert len(bundles) == summary["exported"]
    backups = len(list((repo / "shop").glob("*.orig"))) + 1
    for bundle in bundles:
        shipped = [p.name for p in (bundle / "environment" / "repo").rglob("*")]
        assert not [name for name in shipped if name.endswith((".orig", ".swp"))], bundle
        adaptations = tomllib.loads((bundle / "task.toml").read_text())["metadata"]["adaptations"]
        assert f"backup or compiled files left out of the snapshot: {backups}" in adaptations
