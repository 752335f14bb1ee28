"""mutate.executor: every executor runs jobs through the same interface."""

from gen09_core.mutate.executor import LocalExecutor
from tests.helpers import RecordingExecutor


def test_executors_share_one_interface():
    assert sorted(LocalExecutor(2).run(lambda j: j * 2, [1, 2, 3])) == [2, 4, 6]
    assert list(LocalExecutor(1).run(lambda j: j, [3, 1])) == [3, 1]
    rec = RecordingExecutor()
    assert list(rec.run(str, [1, 2])) == ["2", "1"] and rec.jobs == [1, 2]
