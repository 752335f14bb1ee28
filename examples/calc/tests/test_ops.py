from calc.ops import Accumulator, add, mean


def test_add():
    assert add(2, 3) == 5


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_accumulator():
    acc = Accumulator()
    acc.push(2)
    assert acc.push(3) == 5
