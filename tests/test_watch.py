"""Progress of a running test job, counted from its record while it runs."""

import threading

from gen09_core.testrun.jobs import TestJob, meta_folder, run_job
from gen09_core.testrun.watch import watching
from tests.helpers import repo_with_tests


def test_a_running_jobs_finished_tests_are_counted_from_its_record(runner_env, tmp_path):
    gate = tmp_path / "go"
    repo = repo_with_tests(tmp_path, f"""
        import pathlib, time
        def test_first():
            pass
        def test_second():
            pass
        def test_waits():
            while not pathlib.Path({str(gate)!r}).exists():
                time.sleep(0.02)
        """)
    job = TestJob("watched", str(repo), str(tmp_path / "jobs"))
    seen, two_done = [], threading.Event()

    def report(done, total):
        seen.append((done, total))
        if done >= 2:
            two_done.set()
            gate.touch()  # the third test may end now

    with watching(meta_folder(job) / "outcomes.jsonl", report, every=0.05):
        run = run_job(runner_env, job)
    assert run.status == "ok" and len(run.outcomes) == 3
    assert two_done.is_set()
    # reported while the third test was still waiting: the first two finished of three collected
    assert (2, 3) in seen and seen.index((2, 3)) == [d for d, _ in seen].index(2)


def test_a_record_that_never_appears_reports_nothing(tmp_path):
    seen = []
    with watching(tmp_path / "elsewhere" / "outcomes.jsonl", lambda *count: seen.append(count), every=0.01) as count:
        threading.Event().wait(0.1)
    assert seen == [] and count.finished == 0 and count.total is None
