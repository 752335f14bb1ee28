"""mutate.verify: the failure class of a nop/oracle contrast."""

from gen09_core.mutate.verify import Contrast


def test_contrast_failure_classes():
    assert Contrast("b", 0.0, 1.0, True, 1.0).failure_class is None
    assert Contrast("b", 0.0, 0.0, True, 1.0).failure_class == "oracle"
    assert Contrast("b", 1.0, 1.0, True, 1.0).failure_class == "verifier"
    assert Contrast("b", 0.0, 1.0, False, 1.0).failure_class == "verifier"
