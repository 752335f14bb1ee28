"""What a mutated file changes in a live interpreter, and how a forked child takes it on
(used by the warm worker, ``gen09_warm.py``).

``swap_plan`` compares the pristine and the mutated text of one file and answers what the
child must do so that the objects the collected suite imported behave as a new import of
the mutated file would: every function whose code changed gets its new code object on its
live function objects (``f.__code__ = ...``), moved functions their new line numbers; a
function typeguard's ``@typechecked`` rewrote at import gets what typeguard's own
transformer makes of the mutated file (after checking that it remakes the live code from
the pristine file exactly); undecorated functions whose literal defaults, or postponed
(``from __future__ import annotations``) annotations, changed get their new
``__defaults__``/``__kwdefaults__``/``__annotations__``; a removed method is deleted from
its live class (abstract methods recomputed); a class whose methods were only reordered
gets its namespace in the order a new class would have. ``take_on`` does it in the child.

A mutation the swap cannot carry soundly is answered ``fallback`` with the reason, before
any fork: any other change outside function bodies (module or class-level code,
decorators, non-literal defaults, evaluated annotations), a definition added, a function
or a decorated or special method removed, a changed nested function or closure, a
function the collected suite never imported (in a module it did import: a file nothing in
the worker came from needs no swap), a change to a name defined more than once whose
definitions cannot be told apart by their code (else each live function takes the new code
of its own definition),
a function rewritten at import by a decorator other than typeguard's, a function that ran
at import or collection time (a decorator factory, a parametrize list: what it made would
not be remade; known from the pristine coverage run's import-time lines when the caller
passes them in ``$GEN09_WARM_RAN``, else from a profile hook noting every call until the
first fork; a file imported before this module, which neither saw, is handed back whole; a
generator or coroutine of it alive then counts too) — unless its own
bytecode is the same and only functions nested in it changed (a decorator's wrapper): the
closures it made then take their new code, keeping their cells, as long as each changed
nested function kept its arguments and free variables and, where its own bytecode changed,
did not run before the fork either — a removed method that something could have seen
before the fork (another object holds it, an ABC cached the class, it uncovers an abstract
method), a class with a metaclass or an ``__init_subclass__`` in its or a subclass's MRO.
The caller then runs that job in a fresh process. Standard library only.
"""

import __future__

import abc
import ast
import gc
import json
import os
import sys
import types

CO_NEWLOCALS = 0x0002  # set on function code objects, not on module or class bodies
CO_VARARGS, CO_VARKEYWORDS = 0x0004, 0x0008  # the function takes *args, **kwargs
CO_FUTURE_ANNOTATIONS = 0x1000000  # the module said ``from __future__ import annotations``
_index = {}
_pristine = {}  # (file, its text) -> its compiled code table and its functions' signatures
_pristine_defs = {}  # (file, its text) -> its parsed definitions (_body_defs), for _outside_bodies
_stripped = {}  # (file, its text, methods removed) -> its code table with signatures stripped
_modules = {}  # real path of a file -> its imported module (the first in sys.modules), from prepare()
_abcs = []  # every ABC alive at the first fork (gc.get_objects() does not list frozen objects)
_started = set()  # code of the generators and coroutines alive at the first fork: their frames keep it
_instrumented = {}  # (file, its text, qualname) -> what typeguard made of that function, or None
_ran = set()  # code objects that ran before the first fork: swapping them would not replay that
# {file relative to the root: [lines]} that ran outside any test in the pristine coverage run,
# when the caller has them ($GEN09_WARM_RAN): then no profile hook is needed (it slows collection 2-3x)
_RAN_LINES_FILE = os.environ.pop("GEN09_WARM_RAN", None)  # gone: a fresh run has no such variable
_ran_lines = {}
_loaded = set()  # real paths of the files something in the worker came from (see _unimported)
# the modules imported before this one, whose import no hook saw: a plugin loaded earlier may import
# the repository (pathvalidate 3.2.1's own pytest-md-report imports it through pytablewriter, and a
# function its import ran was swapped as if it had not: a verify trial of a mutant passed)
_BEFORE = set(sys.modules)
_unnoted = set()  # real paths of the files of those modules (see prepare)


def _note(frame, event, arg):
    if event == "call":
        _ran.add(frame.f_code)


# From this module's import (by the plugin, before conftest files, the package and collection)
# on, every Python function that runs is noted: its effects (a decorator's closures, a
# registry, a parametrize list) already exist in the worker, and new code swapped in would
# not redo them.
if not _RAN_LINES_FILE:
    sys.setprofile(_note)


def prepare():
    """In the worker, after collection and before the first fork: stop noting calls, read
    the import-time lines the caller passed, index the imported modules by file, the files
    something in the worker came from, the live functions and ABCs."""
    sys.setprofile(None)
    if _RAN_LINES_FILE:
        with open(_RAN_LINES_FILE, encoding="utf-8") as handle:
            _ran_lines.update({rel: set(lines) for rel, lines in json.load(handle).items()})
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            _modules.setdefault(os.path.realpath(path), module)
            if name in _BEFORE:  # nor did the coverage run that gave the import-time lines, if any
                _unnoted.add(os.path.realpath(path))
    _loaded.update(_modules, map(os.path.realpath, {code.co_filename for code in _ran}))
    _loaded.update(real for real, _ in _live())


def take_on(plan):
    """In the child: make the live objects what ``swap_plan`` planned."""
    for live, new_code, attributes in plan["functions"]:
        for function in live:
            if new_code is not None:
                function.__code__ = new_code
            for name, value in attributes.items():
                if name == "__annotations__":  # in place: a functools.wraps copy shares the dict
                    function.__annotations__.clear()
                    function.__annotations__.update(value)
                else:
                    setattr(function, name, value)
    _remove_methods(plan["removed"])
    _reorder(plan["reordered"])


def _ran_before_fork(live_codes, code, rel):
    """Whether the function of ``code`` (the pristine one; ``live_codes``: the code objects
    the worker's functions of it run) ran before the first fork: from the pristine run's
    import-time lines when known, else from the profile hook's notes. A generator or
    coroutine of it made before the fork counts too, run or not: its frame keeps that code."""
    if any(live in _started for live in live_codes):
        return True
    if not _RAN_LINES_FILE:
        return any(live in _ran for live in live_codes)
    body = {line for _, _, line in code.co_lines() if line} - {code.co_firstlineno}
    return not body or bool(body & _ran_lines.get(rel, set()))  # a one-line function: not known


def _signature(code, deep):
    consts = []
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            consts.append(_signature(const, True) if deep else "<code>")
        else:
            consts.append(repr(const))
    return (code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, code.co_flags,
            code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, tuple(consts))


def _walk(code, table, twice=None):
    """``{qualname: code}`` of the module and class bodies and of the functions defined
    directly in them (a function's nested code belongs to its own signature). A qualname
    defined more than once (``def f`` in both branches of an ``if``) keeps its last code
    there; ``twice`` gets every one of them, in order."""
    name = code.co_qualname
    if name in table and twice is not None:
        twice.setdefault(name, [table[name]]).append(code)
    table[name] = code
    if code.co_flags & CO_NEWLOCALS:
        return table
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _walk(const, table, twice)
    return table


def _twice_swaps(real, old, old_twice, new, new_twice, rel):
    """For each name defined more than once (``def f`` in both branches of an ``if``, a
    property's getter and setter) of which a definition's code changed: ``(swaps, names,
    "")`` — the live functions of every definition that changed or moved, matched to it by
    their pristine code, with its new code — else ``(None, None, reason)``. A changed
    definition must not have run before the fork, and no definition that changed or moved
    may have the same code as another (a live function could come from either; untouched
    ``@overload`` stubs may). Names whose definitions only moved are left out, as for a name
    defined once."""
    swaps, names = [], set()
    for name in sorted(set(old_twice) | set(new_twice)):
        before = old_twice.get(name) or ([old[name]] if name in old else [])
        after = new_twice.get(name) or ([new[name]] if name in new else [])
        pristine = [_signature(code, True) for code in before]
        if pristine == [_signature(code, True) for code in after]:
            continue
        names.add(name)
        why = f"{name} is defined more than once and "
        if len(before) != len(after) or not all(c.co_flags & CO_NEWLOCALS for c in before + after):
            return None, None, why + "its definitions changed"
        live = _live().get((real, name), [])
        if any(_signature(f.__code__, True) not in pristine for f in live):
            return None, None, why + "a live one is not what its file compiles to"
        for old_code, new_code, signature in zip(before, after, pristine, strict=True):
            body = _signature(new_code, True) != signature
            if not body and _lines(old_code) == _lines(new_code):
                continue
            if pristine.count(signature) > 1:  # (``@overload`` stubs: the same code, left as they are)
                return None, None, why + "two of its definitions have the same code"
            made = [f for f in live if _signature(f.__code__, True) == signature]
            if body and old_code.co_freevars != new_code.co_freevars:
                return None, None, f"the closure of {name} changed"
            if body and not made and not _RAN_LINES_FILE:
                return None, None, why + "no live function shows whether the changed one ran"
            if body and _ran_before_fork([f.__code__ for f in made], old_code, rel):
                return None, None, f"{name} ran at import or collection time"
            if made:
                swaps.append((made, new_code, {}))
    return swaps, names, ""


def swap_plan(filename, old_text, new_text, rel):
    """``(plan, "")`` when the worker can carry the change, else ``(None, reason)``; ``rel``
    is the file relative to the root. The plan: ``functions``, ``[(live functions, new code
    or None, {attribute: new value})]`` — bodies, and what undecorated definitions changed
    outside their bodies (literal defaults; annotations where they are postponed) —
    ``removed``, ``[(live class, method name)]``, and ``reordered``, ``[(live class, its
    namespace dict, the key order a new class would have)]``. A file nothing in the worker
    came from needs no swap at all: the plan is empty and a child that imports the file
    reads the mutated text the child writes, as a new process would."""
    if _unimported(filename, rel):
        return {"functions": [], "removed": [], "reordered": []}, ""
    if os.path.realpath(filename) in _unnoted:
        return None, f"{rel} was imported before gen09 could note what its import ran (a plugin did)"
    new_twice = None  # stays None when only one function was compiled again (see _Spans)
    try:
        key = (filename, old_text)  # the same pristine file comes back job after job
        if key not in _pristine:
            old_twice = {}
            table = _walk(compile(old_text, filename, "exec", dont_inherit=True), {}, old_twice)
            functions = {n: _signature(c, True) for n, c in table.items() if c.co_flags & CO_NEWLOCALS}
            spans = _Spans(old_text, table, old_twice)
            _pristine[key] = table, functions, old_twice, spans
        old, signatures, old_twice, spans = _pristine[key]
        new = spans.recompiled(filename, new_text, old)  # the changed function alone, when that is all
        if new is None:
            new_twice = {}
            new = _walk(compile(new_text, filename, "exec", dont_inherit=True), {}, new_twice)
    except (SyntaxError, ValueError) as exc:
        return None, f"does not compile: {exc}"
    real = os.path.realpath(filename)
    twice, twice_names = [], set()
    if new_twice is not None:
        twice, twice_names, reason = _twice_swaps(real, old, old_twice, new, new_twice, rel)
        if reason:
            return None, reason
    if set(new) - set(old):
        return None, "a definition was added"
    removed = sorted(set(old) - set(new))
    outside, reorders = {}, {}
    level = [n for n, c in new.items() if not c.co_flags & CO_NEWLOCALS and c is not old[n]
             and _signature(c, False) != _signature(old[n], False)]
    if removed or level:
        found = _outside_bodies(filename, old_text, new_text, removed)
        if isinstance(found, str):
            return None, found or f"module or class-level code changed ({(level or removed)[0]})"
        outside, reorders = found
    plan = {"functions": [], "removed": [], "reordered": []}
    for name in removed:
        target, reason = _removable(filename, old[name], rel)
        if reason:
            return None, reason
        plan["removed"].append(target)
    for name, order in reorders.items():
        target, reason = _reorderable(filename, name, order)
        if reason:
            return None, reason
        plan["reordered"].append(target)
    if twice_names & set(outside):
        return None, f"{min(twice_names & set(outside))} is defined more than once and its signature changed"
    plan["functions"] += twice
    for name, code in new.items():
        if not code.co_flags & CO_NEWLOCALS or code is old[name] or name in twice_names:  # untouched, or done
            continue
        body = _signature(code, True) != signatures[name]
        moved = body or _lines(code) != _lines(old[name])  # tracebacks show the new lines
        if not moved and name not in outside:
            continue
        live = _live().get((real, name), [])
        plain = [f for f in live if _signature(f.__code__, True) == signatures[name]]
        if not body and name not in outside:  # only moved: the same behaviour, wherever it ran
            if plain:
                plan["functions"].append((plain, code, {}))
            continue
        if body and code.co_freevars != old[name].co_freevars:
            return None, f"the closure of {name} changed"
        if not live:
            return None, f"{name} was never imported by the collected suite"
        # what a function that ran before the fork made is not made again (its closures' code can be
        # changed), and a live generator of it would go on with the old code
        if _ran_before_fork([f.__code__ for f in live], old[name], rel):
            if name in outside or _signature(code, False) != _signature(old[name], False) or any(
                    f.__code__ in _started for f in live):
                return None, f"{name} ran at import or collection time"
            closures, reason = _closure_swaps(real, old[name], code, rel, [f.__code__ for f in plain])
            if reason:
                return None, reason
            plan["functions"] += closures
        rewritten = [f for f in live if f not in plain]
        if rewritten:
            made, reason = None, ""
            if body:
                made, reason = _retypechecked(rewritten, old_text, new_text, old[name], code)
            if reason:
                return None, reason
            plan["functions"].append((rewritten, made, outside.get(name, {})))
        if plain:
            plan["functions"].append((plain, code if moved else None, outside.get(name, {})))
    if not any(plan.values()):
        return None, "no function's code changed"
    return plan, ""


_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


class _Spans:
    """Where the functions of one pristine file are, so that a change inside one function's
    body is compiled alone: the ``def`` (decorators first) at its own line, under its
    enclosing ``class`` lines, blank lines and one ``import`` of every name the module binds
    by an import (the compiler calls ``module.f()`` differently from ``obj.f()``), with the
    module's ``__future__`` flags — so that its code object is the one the whole mutated
    file would give. Only functions directly in the module or in classes directly nested
    from it, defined once, whose body starts on a line after their signature."""

    def __init__(self, text, table, twice):
        self.lines = text.splitlines(keepends=True)
        self.future = table["<module>"].co_flags & _FUTURE_FLAGS
        import symtable  # here, after collection: a child takes it out of sys.modules again

        imported = [s.get_name() for s in symtable.symtable(text, "<module>", "exec").get_symbols()
                    if s.is_imported()]
        self.imports = [f"import {', '.join(imported)}\n"] if imported else []
        self.found = []  # (first line, body's first line, last line, qualname, [(indent, class name)])
        todo = [(node, []) for node in ast.parse(text).body]
        while todo:
            node, classes = todo.pop()
            if isinstance(node, ast.ClassDef):
                indent = self.lines[node.lineno - 1][:node.col_offset]
                todo += [(child, [*classes, (indent, node.name)]) for child in node.body]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = ".".join([name for _, name in classes] + [node.name])
                header = [node.lineno] + [getattr(n, "end_lineno", None) or 0 for part in (
                    node.args, node.returns, *node.decorator_list) if part for n in ast.walk(part)]
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if node.body[0].lineno > max(header) and qualname not in twice:
                    self.found.append((first, node.body[0].lineno, node.end_lineno, qualname, classes))

    def recompiled(self, filename, text, old):
        """The code table ``_walk`` would make of the mutated ``text``, when the lines that
        differ from the pristine file all lie in one function's body: that function compiled
        again, the functions after it moved by the lines it gained or lost; else None."""
        lines = text.splitlines(keepends=True)
        same = next((i for i, (a, b) in enumerate(zip(self.lines, lines, strict=False)) if a != b), None)
        if same is None:  # lines only added or removed at the end
            return None
        tail = 0
        while tail < min(len(self.lines), len(lines)) - same and self.lines[-1 - tail] == lines[-1 - tail]:
            tail += 1
        first, last = same + 1, len(self.lines) - tail  # the pristine lines that changed (none: inserted)
        shift = len(lines) - len(self.lines)
        span = next((f for f in self.found if f[1] <= first and max(first, last) <= f[2]), None)
        if span is None:
            return None
        start, _, end, qualname, classes = span
        headers = [f"{indent}class {name}:\n" for indent, name in classes]
        blank = start - 1 - len(self.imports) - len(headers)  # so that the def keeps its line
        if blank < 0:
            return None
        source = "".join(self.imports + ["\n"] * blank + headers + lines[start - 1:end + shift])
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return None
        body = tree.body[len(self.imports):]
        for _, name in classes:
            if len(body) != 1 or not isinstance(body[0], ast.ClassDef) or body[0].name != name:
                return None
            body = body[0].body
        if len(body) != 1 or not isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) or (
                body[0].name != qualname.rpartition(".")[2]):
            return None
        code = _walk(compile(tree, filename, "exec", flags=self.future, dont_inherit=True), {})[qualname]
        new = {name: _moved(c, shift) if shift and c.co_flags & CO_NEWLOCALS and c.co_firstlineno > end else c
               for name, c in old.items()}
        new[qualname] = code
        return new


def _moved(code, lines):
    """``code`` (and the code nested in it) ``lines`` lines further down its file."""
    consts = tuple(_moved(c, lines) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + lines, co_consts=consts)


def _unimported(filename, rel):
    """Whether nothing in the worker came from ``filename``: no module of it is imported, no
    function of it is alive, and none of its code ran before the fork (the import-time lines
    of the pristine coverage run when the caller passed them, else the profile hook's notes:
    a module imported and dropped from ``sys.modules`` again still ran)."""
    return os.path.realpath(filename) not in _loaded and not _ran_lines.get(rel)


def _nested(code):
    return [const for const in code.co_consts if isinstance(const, types.CodeType)]


def _interface(code):
    """What a closure made before the fork fixed about its function: name, arguments, flags
    and free variables (its cells)."""
    star = bool(code.co_flags & CO_VARARGS) + bool(code.co_flags & CO_VARKEYWORDS)
    named = code.co_argcount + code.co_kwonlyargcount + star
    return (code.co_qualname, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_flags, code.co_varnames[:named], code.co_freevars)


def _closure_swaps(real, old, new, rel, codes):
    """When function code ``old`` ran before the first fork and became ``new`` only inside
    the functions nested in it (its own bytecode the same): ``(swaps, "")``, every live
    closure of a nested function whose code changed or moved with that function's new code
    (its cells kept) — what the mutated function would have made — else ``(None, reason)``.
    A nested function whose own bytecode changed must not have run before the fork either,
    and its arguments and free variables must stay; a closure is matched to its
    definition by its pristine code, so two definitions of one name must differ. ``codes``:
    the live code objects of ``old`` (whose nested code is what ran, even where no closure
    of it is left)."""
    pairs = list(zip(_nested(old), _nested(new), strict=True))  # the same bytecode: as many of each
    known = {}
    for before, _ in pairs:
        known.setdefault(before.co_qualname, []).append(_signature(before, True))
    swaps = []
    for index, (before, after) in enumerate(pairs):
        name, pristine = before.co_qualname, _signature(before, True)
        here = [_nested(code)[index] for code in codes]
        if pristine == _signature(after, True) and _lines(before) == _lines(after):
            continue
        if known[name].count(pristine) > 1:
            return None, f"{name} is defined more than once with the same code"
        if any(code in _started for code in here):  # a live generator of it goes on with the old code
            return None, f"{name} ran at import or collection time"
        if _interface(before) != _interface(after):
            return None, f"the arguments or closure of {name} changed"
        live = _live().get((real, name), [])
        if any(_signature(f.__code__, True) not in known[name] for f in live):
            return None, f"a live {name} was not made from its pristine code"
        made = [f for f in live if _signature(f.__code__, True) == pristine]
        same = _signature(before, False) == _signature(after, False)
        if not same and _ran_before_fork(here + [f.__code__ for f in made], before, rel):
            return None, f"{name} ran at import or collection time"
        if made:
            swaps.append((made, after, {}))
        if same:
            deeper, reason = _closure_swaps(real, before, after, rel, here)
            if reason:
                return None, reason
            swaps += deeper
    return swaps, ""


def _lines(code):
    return code.co_firstlineno, code.co_linetable


def _body_defs(tree):
    """``{qualname: (def node, the body holding it)}`` of the functions and classes defined
    directly in module and class bodies."""
    found, todo = {}, [("", tree.body, node) for node in tree.body]
    while todo:
        prefix, body, node = todo.pop()
        if isinstance(node, ast.ClassDef):
            found[prefix + node.name] = (node, body)
            todo += [(f"{prefix}{node.name}.", node.body, child) for child in node.body]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[prefix + node.name] = (node, body)
    return found


def _statement_names(node):
    """The names a statement of a module or class body binds there."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _bound_names(body):
    """How many times each name is bound by the statements of ``body`` (not inside them)."""
    counts = {}
    for node in body:
        for name in _statement_names(node):
            counts[name] = counts.get(name, 0) + 1
    return counts


def _outside_bodies(filename, old_text, new_text, removed):
    """What changed outside function bodies, when that is all carried by attributes of
    undecorated functions, removed methods and reordered classes: ``({qualname: {attribute:
    new value}}, {class qualname: its body's names in the new order})`` — the attributes are
    ``__defaults__`` / ``__kwdefaults__`` when old and new defaults are literals and
    ``__annotations__`` when the module postpones annotations, as the compiler makes them.
    Otherwise the reason (a str; "" for the generic one). Both texts are compared compiled
    with those differences and the removed methods taken out, so nothing else may differ.
    What only the pristine text decides is made once per file (``_pristine_defs``,
    ``_stripped``): it comes back job after job."""
    if (filename, old_text) not in _pristine_defs:
        _pristine_defs[filename, old_text] = _body_defs(ast.parse(old_text))  # read below, never changed
    new_tree = ast.parse(new_text)
    defs = [_pristine_defs[filename, old_text], _body_defs(new_tree)]
    for name in removed:
        node, body = defs[0].get(name, (None, None))
        parent = name.rpartition(".")[0]
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not isinstance(
                defs[0].get(parent, (None,))[0], ast.ClassDef):
            return f"{name} was removed and is not a method"
        if node.decorator_list or _bound_names(body)[node.name] != 1 or node.name in _KEEP_METHODS:
            return f"{name} was removed and is decorated, bound twice or special to class creation"
    changed, reorders, postponed = {}, {}, False
    lines = [old_text.splitlines(), new_text.splitlines()]
    for name, (node, _) in defs[1].items():
        before = defs[0][name][0]
        if isinstance(node, ast.ClassDef) and isinstance(before, ast.ClassDef) and (
                lines[0][before.lineno - 1:before.end_lineno] != lines[1][node.lineno - 1:node.end_lineno]):
            order = _shuffled(before, node)  # (a class of the same text is the same class)
            if isinstance(order, str):
                return order
            if order:
                reorders[name] = order
    for name, (node, _) in defs[1].items():
        before = defs[0][name][0]
        if isinstance(node, ast.ClassDef) or (_annotations(before), _defaults(before)) == (
                _annotations(node), _defaults(node)):
            continue
        if node.decorator_list or before.decorator_list:
            return ""  # a decorator may have read them at import
        changed[name] = attributes = {}
        if _annotations(before) != _annotations(node):
            postponed = True
            attributes["__annotations__"] = _compiled_annotations(node)
        if _defaults(before) != _defaults(node):
            args = node.args
            try:
                for default in (*_defaults_nodes(before), *_defaults_nodes(node)):
                    ast.literal_eval(default)
            except ValueError:
                return ""  # a default that is not a literal is evaluated at import
            keyword = {a.arg: ast.literal_eval(d)
                       for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d}
            attributes.update(__defaults__=tuple(map(ast.literal_eval, args.defaults)) or None,
                              __kwdefaults__=keyword or None)
    key = (filename, old_text, tuple(removed))
    if key not in _stripped:
        _stripped[key] = _stripped_table(filename, ast.parse(old_text), removed)
    tables = [_stripped[key], _stripped_table(filename, new_tree)]
    if None in tables or (postponed and not tables[1]["<module>"].co_flags & CO_FUTURE_ANNOTATIONS):
        return ""  # annotations are evaluated at definition time: running them could do anything
    if set(tables[0]) != set(tables[1]):
        return ""
    for name, code in tables[1].items():
        if not code.co_flags & CO_NEWLOCALS and _signature(code, False) != _signature(tables[0][name], False):
            return ""
    return changed, reorders


def _stripped_table(filename, tree, removed=()):
    """The code table (``_walk``) of the module ``tree`` compiled with every function's
    signature stripped (``_strip_signature``) and the methods ``removed`` taken out; None
    when it does not compile. Changes ``tree``."""
    defs = _body_defs(tree)
    for name in removed:
        node, body = defs[name]
        body.remove(node)
    for node, _ in defs.values():
        if not isinstance(node, ast.ClassDef):
            _strip_signature(node)
    try:
        return _walk(compile(tree, filename, "exec", dont_inherit=True), {})
    except (SyntaxError, ValueError):
        return None


# methods whose removal a live class cannot show as a new class would: read at class creation
# (``__eq__`` without ``__hash__`` makes ``__hash__ = None``), or not a plain slot
_KEEP_METHODS = {"__eq__", "__hash__", "__new__", "__init_subclass__", "__subclasshook__", "__set_name__",
                 "__class_getitem__", "__mro_entries__", "__prepare__", "__instancecheck__",
                 "__subclasscheck__"}


_PURE_DECORATORS = {"staticmethod", "classmethod", "property", "abstractmethod", "abc.abstractmethod"}


def _shuffled(before, after):
    """When class ``after`` is class ``before`` with methods in another order (each moved
    one bound once, undecorated or with pure built-in decorators): every name the new body
    binds, in the order it first binds them, after putting ``after``'s body back in the old
    order; None when the bodies are not a reordering; a reason when it cannot be carried."""
    old, new = [ast.dump(n) for n in before.body], [ast.dump(n) for n in after.body]
    if old == new or sorted(old) != sorted(new):
        return None
    moved = [n for a, b, n in zip(old, new, after.body, strict=True) if a != b]
    if any(not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in moved):
        return f"statements of {before.name} other than methods moved"
    counts = _bound_names(before.body)
    if after.decorator_list or any(
            counts[n.name] != 1 or any(ast.unparse(d) not in _PURE_DECORATORS for d in n.decorator_list)
            for n in moved):
        return f"the reordered methods of {before.name} are bound twice or decorated"
    bound = (_mangled(name, after.name) for node in after.body for name in _statement_names(node))
    order = list(dict.fromkeys(bound))
    after.body[:] = [after.body[new.index(dump)] for dump in old]
    return order


def _mangled(name, class_name):
    """The key a class body's ``name`` gets in the namespace of class ``class_name``: a private
    name (``__x``, no trailing ``__``) becomes ``_Class__x``, as the compiler mangles it."""
    owner = class_name.lstrip("_")
    if owner and name.startswith("__") and not name.endswith("__"):
        return f"_{owner}{name}"
    return name


def _arguments(node):
    args = node.args
    return [a for a in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg) if a]


def _annotations(node):
    return [ast.dump(a.annotation) if a.annotation else "" for a in _arguments(node)] + [
        ast.dump(node.returns) if node.returns else ""]


def _defaults_nodes(node):
    return [d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None]


def _defaults(node):
    return [ast.dump(d) for d in _defaults_nodes(node)]


def _strip_signature(node):
    """Annotations out, each default value replaced by None (how many there are still counts)."""
    for arg in _arguments(node):
        arg.annotation = None
    node.returns = None
    _blank_defaults(node)


def _blank_defaults(node):
    """Each default value of ``node`` replaced by None, in place (their number stays)."""
    node.args.defaults = [ast.copy_location(ast.Constant(None), d) for d in node.args.defaults]
    node.args.kw_defaults = [d and ast.copy_location(ast.Constant(None), d) for d in node.args.kw_defaults]


def _compiled_annotations(node):
    """The ``__annotations__`` a postponed-annotations module gives the function ``node``:
    the same compiler on a copy with no body, decorators or default values."""
    function = ast.parse(ast.unparse(node)).body[0]  # a fresh copy
    function.decorator_list, function.body, function.name = [], [ast.Pass()], "stub"
    _blank_defaults(function)
    module = ast.Module([ast.ImportFrom("__future__", [ast.alias("annotations")], 0), function], [])
    namespace = {}
    exec(compile(ast.fix_missing_locations(module), "<annotations>", "exec", dont_inherit=True), namespace)
    return namespace["stub"].__annotations__


def _live_class(filename, qualname):
    """The live class ``qualname`` of the module at ``filename``, or None."""
    module = _module_of(filename)
    cls = module
    for part in qualname.split("."):
        cls = getattr(cls, part, None)
    name = getattr(module, "__name__", None)
    if isinstance(cls, type) and (cls.__qualname__, cls.__module__) == (qualname, name):
        return cls
    return None


def _creation_hooks(classes):
    """Whether creating any of ``classes`` (a class with its subclasses) ran code of their
    own: a metaclass other than ``type``/``ABCMeta`` or an ``__init_subclass__`` in an MRO."""
    return any(type(k) not in (type, abc.ABCMeta) for k in classes) or any(
        "__init_subclass__" in vars(b) for k in classes for b in k.__mro__[:-1])


def _reorderable(filename, qualname, order):
    """``((live class, its namespace dict, the key order a new class would have), "")`` when
    the class's methods were only reordered, else ``(None, reason)``."""
    cls = _live_class(filename, qualname)
    if cls is None:
        return None, f"the reordered class {qualname} was not imported by the collected suite"
    if _creation_hooks(_with_subclasses([cls])):
        return None, f"{qualname} or a subclass has a metaclass or an __init_subclass__"
    found = [d for d in gc.get_referents(cls.__dict__) if isinstance(d, dict)]
    if len(found) != 1 or any(name not in found[0] for name in order):
        return None, f"the namespace of {qualname} cannot be reordered"
    bound = iter(order)
    keys = [next(bound) if key in order else key for key in found[0]]  # the body's names, new order
    return (cls, found[0], keys), ""


def _reorder(reordered):
    """In the child: put each class's namespace in the order a new class would have (its
    keys and values unchanged), then have the type drop what it cached about it: any
    assignment to a class does, so one to a name of gen09's own, deleted again (assigning
    a name of the class could go to the type itself, as ``__name__`` does)."""
    for cls, namespace, keys in reordered:
        items = {key: namespace[key] for key in keys}
        namespace.clear()
        namespace.update(items)
        cls._gen09_reordered = None
        del cls._gen09_reordered


def _removable(filename, code, rel):
    """``((live class, method name), "")`` when deleting the method from its live class
    shows the tests what a class created without it would, else ``(None, reason)``.

    Refused when something before the fork could have seen the method: it ran; another
    object holds it (a default argument such as ``cache_getitem=Cache.__getitem__``); the
    class or a subclass has a metaclass other than ``type``/``ABCMeta`` or an
    ``__init_subclass__`` in its MRO; an ABC's isinstance cache holds one of them; or the
    removal uncovers an abstract method (instances made at import would not exist)."""
    parent, _, method = code.co_qualname.rpartition(".")
    cls = _live_class(filename, parent)
    if cls is None:
        return None, f"the class of the removed {code.co_qualname} was not imported by the collected suite"
    function = vars(cls).get(method)
    if not isinstance(function, types.FunctionType) or _signature(function.__code__, True) != _signature(
            code, True):
        return None, f"{parent}.{method} is not the function its file defines"
    if _ran_before_fork([function.__code__], code, rel):
        return None, f"{code.co_qualname} ran at import or collection time"
    # held by the class, the index of live functions, this frame and getrefcount's argument only
    if sys.getrefcount(function) > 4:
        return None, f"{code.co_qualname} is referred to from elsewhere (kept at import time)"
    classes = _with_subclasses([cls])
    if _creation_hooks(classes):
        return None, f"{parent} or a subclass has a metaclass or an __init_subclass__ that saw {method}"
    inherited = next((vars(k)[method] for k in cls.__mro__[1:] if method in vars(k)), None)
    if getattr(inherited, "__isabstractmethod__", False):
        return None, f"removing {code.co_qualname} leaves an abstract method"
    for known in _abcs:
        _, cache, negative, _ = abc._get_dump(known)
        if any(ref() in classes for ref in cache | negative):
            return None, f"an isinstance or issubclass check saw {parent} or a subclass before the fork"
    return (cls, method), ""


def _with_subclasses(classes):
    found, todo = set(), list(classes)
    while todo:
        cls = todo.pop()
        if cls not in found:
            found.add(cls)
            todo += type.__subclasses__(cls)
    return found


def _module_of(filename):
    """The imported module of ``filename`` (the worker's modules do not change between jobs)."""
    return _modules.get(os.path.realpath(filename))


def _remove_methods(removed):
    """In the child: delete the methods, then recompute the abstract methods of their
    classes and subclasses, as creating them without the methods would."""
    for cls, method in removed:
        delattr(cls, method)
    for cls in sorted(_with_subclasses([c for c, _ in removed]), key=lambda c: len(c.__mro__)):
        abc.update_abstractmethods(cls)  # bases before subclasses


def _typechecked(filename, text, qualname, firstlineno):
    """The code typeguard's ``@typechecked`` makes of the function ``qualname`` (whose code
    starts on ``firstlineno``) when the module's text is ``text`` — typeguard's own
    transformer on the module, as its ``instrument()`` does at import — or None. The
    definitions beside the function's own line of classes are left out first (a function's
    code does not depend on them; on inflect the transformer's walk was most of the cost)."""
    transformer = sys.modules.get("typeguard._transformer")
    decorators = sys.modules.get("typeguard._decorators")
    if transformer is None or decorators is None:
        return None
    path = [part for part in qualname.split(".") if part != "<locals>"]
    try:
        tree = ast.parse(text)
        _keep_only_path(tree, path)
        instrumentor = transformer.TypeguardTransformer(path, firstlineno)
        instrumentor.visit(tree)
        if not instrumentor.target_node or instrumentor.target_lineno is None:
            return None
        module = compile(tree, filename, "exec", dont_inherit=True)
        return decorators.find_target_function(module, path, instrumentor.target_lineno)
    except Exception:  # a typeguard this code does not know: the job runs fresh
        return None


def _keep_only_path(tree, path):
    """Drop the definitions of module and class bodies that are not on ``path`` (a function
    nested in a function keeps its whole enclosing body: its siblings decide its closure)."""
    body = tree.body
    for name in path:
        body[:] = [n for n in body if not isinstance(n, _DEFINITIONS) or n.name == name]
        on_path = [n for n in body if isinstance(n, _DEFINITIONS) and n.name == name]
        if len(on_path) != 1 or not isinstance(on_path[0], ast.ClassDef):
            return
        body = on_path[0].body


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _retypechecked(rewritten, old_text, new_text, old_code, new_code):
    """``(code, "")``: what typeguard makes of the mutated function, when the live code is
    exactly what typeguard made of the pristine one (so a new import would instrument the
    mutant the same way); else ``(None, reason)``."""
    name, filename = old_code.co_qualname, rewritten[0].__code__.co_filename
    key = (filename, old_text, name)
    if key not in _instrumented:
        _instrumented[key] = _typechecked(filename, old_text, name, old_code.co_firstlineno)
    before = _instrumented[key]
    if before is None or any(_signature(f.__code__, True) != _signature(before, True) for f in rewritten):
        return None, f"the code of {name} was rewritten after import by a decorator other than typeguard's"
    after = _typechecked(filename, new_text, name, new_code.co_firstlineno)
    if after is None or after.co_freevars != before.co_freevars:
        return None, f"typeguard does not instrument the mutated {name} as it did the original"
    return after, ""


def _live():
    if not _index:
        real = {}  # co_filename -> its real path (one lookup per file, not per function)
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType):
                code = obj.__code__
                if code.co_filename not in real:
                    real[code.co_filename] = os.path.realpath(code.co_filename)
                _index.setdefault((real[code.co_filename], code.co_qualname), []).append(obj)
            elif isinstance(obj, abc.ABCMeta):
                _abcs.append(obj)
            elif isinstance(obj, (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)):
                _started.add(getattr(obj, "gi_code", None) or getattr(obj, "cr_code", None) or obj.ag_code)
    return _index
