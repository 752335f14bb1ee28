from gen09_core import represent
from gen09_core.models import Span, Target


def test_span_of_40_lines_is_localized_search_replace(registry):
    rep = represent.select(registry, Target("a.py", Span(1, 40)))
    assert (rep.classification, rep.format) == ("localized-edit", "search_replace")
    assert "40" in rep.reason


def test_span_of_41_lines_is_structural_whole_file(registry):
    rep = represent.select(registry, Target("a.py", Span(10, 50)))
    assert (rep.classification, rep.format) == ("structural-rewrite", "whole_file")
    assert "41 lines" in rep.reason


def test_change_across_a_module_boundary_is_structural(registry):
    rep = represent.select(registry, Target("a.py", Span(1, 3)), ("a.py", "b.py"))
    assert rep.format == "whole_file"
    assert "b.py" in rep.reason


def test_no_span_is_structural(registry):
    assert represent.select(registry, None).format == "whole_file"
    assert represent.select(registry, Target("a.py")).format == "whole_file"
