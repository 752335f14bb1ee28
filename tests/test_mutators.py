"""Before/after pairs for every Python mutator, plus determinism and eligibility."""

import random
import textwrap

import pytest

from gen09_core.models import Entity, Span
from gen09_python import pack
from gen09_python.mutators import MUTATORS, by_name
from tests.helpers import ROOT


def _entity(text, name):
    for entity in pack.gen09_entities(language="python", path="m.py", text=text):
        if entity.name == name:
            return entity
    raise AssertionError(name)


def _mutate(name, before, entity, seed=0):
    before = textwrap.dedent(before)
    mutator = by_name(name)
    ent = _entity(before, entity)
    assert mutator.eligible(mutator.features("m.py", before, ent), ent)
    return mutator.mutate("m.py", before, ent, random.Random(seed))


PAIRS = [
    ("ctrl_invert_if", "f", """
        def f(x):
            if x:
                return 1
            else:
                return 2
        """, """
        def f(x):
            if x:
                return 2
            else:
                return 1
        """),
    ("remove_assign", "f", """
        def f(x):
            y = x + 1
            return x
        """, """
        def f(x):
            return x
        """),
    ("remove_cond", "f", """
        def f(x):
            if x > 3:
                x = 3
            return x
        """, """
        def f(x):
            return x
        """),
    ("remove_loop", "f", """
        def f(xs):
            total = 0
            for x in xs:
                total += x
            return total
        """, """
        def f(xs):
            total = 0
            return total
        """),
    ("remove_wrapper", "f", """
        def f(x):
            try:
                return int(x)
            except ValueError:
                return 0
        """, """
        def f(x):
            return int(x)
        """),
    ("op_break_chains", "f", """
        def f(a, b, c):
            return a + b + c
        """, """
        def f(a, b, c):
            return a + c
        """),
    ("op_change", "f", """
        def f(a, b):
            return a - b
        """, """
        def f(a, b):
            return a + b
        """),
    ("op_swap", "f", """
        def f(a, b):
            return a - b
        """, """
        def f(a, b):
            return b - a
        """),
    ("op_flip_compare", "f", """
        def f(a, b):
            return a == b
        """, """
        def f(a, b):
            return a != b
        """),
    ("op_flip_bool", "f", """
        def f(a, b):
            return a and b
        """, """
        def f(a, b):
            return a or b
        """),
    ("op_change_const", "f", """
        def f(a):
            return a[0]
        """, """
        def f(a):
            return a[1]
        """),
    ("class_rm_base", "C", """
        class C(Base):
            def m(self):
                return 1
        """, """
        class C():
            def m(self):
                return 1
        """),
    ("class_rm_funcs", "C", """
        class C:
            def m(self):
                return 1
        """, """
        class C:
            pass
        """),
    ("class_shuffle_funcs", "C", """
        class C:
            def a(self):
                return 1

            def b(self):
                return 2
        """, """
        class C:
            def b(self):
                return 2

            def a(self):
                return 1
        """),
    ("ctrl_shuffle", "f", """
        def f():
            \"\"\"Doc.\"\"\"
            a = 1
            return a
        """, """
        def f():
            \"\"\"Doc.\"\"\"
            return a
            a = 1
        """),
]


@pytest.mark.parametrize(("name", "entity", "before", "after"), PAIRS, ids=[p[0] for p in PAIRS])
def test_before_after(name, entity, before, after):
    assert _mutate(name, before, entity) == textwrap.dedent(after)


def test_every_mutator_has_a_pair_and_metadata():
    assert {p[0] for p in PAIRS} == {m.name for m in MUTATORS}
    for m in MUTATORS:
        assert m.description and m.description.endswith(".")
        assert 0 < m.likelihood <= 1
        assert m.kinds and m.min_complexity >= 1


def test_only_the_entity_changes():
    before = "def g(a, b):\n    return a - b\n\n\ndef f(a, b):\n    return a - b\n"
    after = _mutate("op_swap", before, "f")
    assert after == "def g(a, b):\n    return a - b\n\n\ndef f(a, b):\n    return b - a\n"


def test_same_seed_same_mutant_and_seeds_differ():
    before = textwrap.dedent("""
        def f(a, b, c, d):
            x = a + b - c * d + 1 - 2 + 3
            y = a - b + c - d
            return x + y - a * b
        """)
    ent = _entity(before, "f")
    m = by_name("op_change")
    runs = {m.mutate("m.py", before, ent, random.Random(s)) for s in range(10)}
    assert len(runs) > 1
    assert m.mutate("m.py", before, ent, random.Random(3)) == m.mutate("m.py", before, ent, random.Random(3))


def test_conditions_gate_eligibility():
    text = "def f(x):\n    return x\n"
    ent = _entity(text, "f")
    for name in ("ctrl_invert_if", "remove_loop", "remove_cond", "op_flip_bool"):
        m = by_name(name)
        assert not m.eligible(m.features("m.py", text, ent), ent)
    cls = by_name("class_rm_base")
    assert not cls.eligible(cls.features("m.py", text, ent), ent)  # a function is not a class


def test_complexity_counts_decisions():
    text = textwrap.dedent("""
        def f(xs):
            for x in xs:
                if x and x > 1:
                    return x
            return None
        """)
    feats = by_name("op_swap").features("m.py", text, _entity(text, "f"))
    assert feats.complexity == 4
    assert {"loop", "if", "bool_op", "compare", "function"} <= feats.properties


def test_repeated_names_pick_the_right_definition():
    text = textwrap.dedent("""
        class C:
            @property
            def x(self):
                return self._x + 1

            @x.setter
            def x(self, value):
                self._x = value - 1
        """)
    entities = [e for e in pack.gen09_entities(language="python", path="m.py", text=text) if e.name == "C.x"]
    second = entities[1]
    out = by_name("op_change").mutate("m.py", text, second, random.Random(0))
    assert "self._x + 1" in out and "value + 1" in out


def test_unparsable_or_missing_entity_gives_none():
    m = by_name("op_swap")
    assert m.mutate("m.py", "def f(:\n", Entity("f", "function", Span(1, 1)), random.Random(0)) is None
    assert m.mutate("m.py", "x = 1\n", Entity("g", "function", Span(1, 1)), random.Random(0)) is None


def test_hook_offers_mutators_for_python_only():
    assert pack.gen09_mutators(language="python") == list(MUTATORS)
    assert pack.gen09_mutators(language="go") is None


def test_fast_entity_path_equals_whole_module_path(monkeypatch):
    from gen09_python.mutators import base

    text = (ROOT / "tests" / "fixtures" / "mutate_repo" / "shop" / "cart.py").read_text() + textwrap.dedent('''

        class Odd:
            def doc(self, x):
                """Line one.
        Line two at column zero.
                """
                return x + 1 if x > 0 else x - 1
        ''')
    entities = pack.gen09_entities(language="python", path="m.py", text=text)
    pairs = [(m, e) for m in MUTATORS for e in entities if m.eligible(m.features("m.py", text, e), e)]
    fast = [m.mutate("m.py", text, e, random.Random(7)) for m, e in pairs]
    monkeypatch.setattr(base, "_local_module", lambda block: None)
    slow = [m.mutate("m.py", text, e, random.Random(7)) for m, e in pairs]
    assert len(pairs) > 20 and fast == slow
