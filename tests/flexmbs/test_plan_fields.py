"""The compiled plan as one object with named fields (flexmbs.engine.plan_fields): compiled code reads, by name, the
very arrays the Python plan holds, and a run's state arrays; a plan array of another type is refused in one line."""
import numba
import numpy as np
import pytest

import flexmbs as fm
from flexmbs.engine.plan_fields import ALIASES, BLK, FIELDS, MF, MI, TMP, WS, PlanRef, pack
from flexmbs.engine.system import System
from numba import types

from test_evaluate import pendulum


def _leaves(typ, path):
    """``(path, array type)`` of every array in a field of type ``typ`` (``path``: how compiled code reaches it)."""
    if isinstance(typ, types.Array):
        return [(path, typ)]
    if isinstance(typ, types.BaseTuple):
        return [leaf for k, member in enumerate(typ) for leaf in _leaves(member, f"{path}[{k}]")]
    return []


def _reader():
    """A compiled function returning, for every array of every field, its data address, size and first stride
    (generated: a field is read by its name)."""
    leaves = [leaf for name, typ in FIELDS for leaf in _leaves(typ, f"P.{name}")]
    lines = ["def read(P):", f"    out = np.zeros(({len(leaves)}, 3), dtype=np.int64)"]
    for k, (path, typ) in enumerate(leaves):
        lines.append(f"    out[{k}, 0], out[{k}, 1], out[{k}, 2] = {path}.ctypes.data, {path}.size, "
                     f"{path}.strides[0]")
    lines.append("    return out")
    namespace = {"np": np}
    exec("\n".join(lines), namespace)  # noqa: S102
    return numba.njit(namespace["read"]), leaves


def _python_arrays(plan, run):
    """The Python objects of every field, in the struct's order (the tuples by the names of plan_fields)."""
    named = {**dict(zip(MI, plan.mi)), **dict(zip(MF, plan.mf)), **dict(zip(WS, plan.ws)), **dict(zip(BLK, plan.blk)),
             **dict(zip(TMP, plan.tmp)), "el_kernels": plan.fns[0], "k_addr": plan.fns[5], "sp": plan.sampler.sp,
             "bf": plan.sampler.bf, "cur": run.cur, "new": run.new, "coef": run.coef, "sc": run.sc, "fl": run.fl,
             "stats": run.counters}
    named.update({alias: (named.get(tuple_) or getattr(plan, tuple_))[k] for alias, (tuple_, k) in ALIASES.items()})
    out = []

    def walk(value):
        if isinstance(value, np.ndarray):
            out.append(value)
        elif isinstance(value, tuple):
            for item in value:
                walk(item)
    for name, _ in FIELDS:
        walk(named[name] if name in named else getattr(plan, name, None))
    return out


def test_compiled_code_reads_the_python_plans_arrays_by_name():
    """Every array field, read by name in compiled code, is the Python plan's array (same data address, size and
    stride: the same memory, so an in-place change in Python is seen by the step); so are the names of single arrays
    of the nested tuples (``plan.freeze`` is ``fx_work[4]``, ...)."""
    run = fm.Run(pendulum(damping=0.3), t_end=0.05)
    compiled = run._run
    plan = compiled.plan
    read, leaves = _reader()
    got = read(plan.struct)
    arrays = _python_arrays(plan, compiled)
    assert len(arrays) == len(leaves) == got.shape[0]
    for (path, _), array, row in zip(leaves, arrays, got):
        expected = (array.ctypes.data, array.size, array.strides[0])
        assert tuple(row) == expected, path
    # the run continues on the same arrays: the state it reports is the one compiled code writes
    run.advance_to(0.05)
    assert run.time == pytest.approx(0.05, rel=1e-12)
    assert np.array_equal(read(plan.struct), got)


def test_a_plan_array_of_another_type_is_refused_in_one_line():
    """The fields' types are fixed (the compiled step does not depend on the model): a float array where the plan
    holds indices is a TypeError naming the field."""
    system = System(pendulum())
    from flexmbs.engine.evaluate import evaluator
    plan = evaluator(system).plan
    assert isinstance(plan.struct, PlanRef)
    with pytest.raises(TypeError, match="'keep'.*int64") as err:
        pack(plan.struct, {}, keep=np.zeros(3))
    assert "\n" not in str(err.value)


def test_the_compiled_reading_of_a_plans_arrays_is_the_python_reading():
    """pack reads the ≈ 180 arrays of a plan in one compiled call (issue 41: a third of a small run's start); its
    words are exactly those of the Python reading (numpy's own ``size``, ``itemsize``, data address, ``shape``,
    ``strides``), for every field of a real plan and of a run's state; an array of another dtype, dimension or
    memory order, or an ndarray subclass, is left to the Python reading (which takes or refuses it as before)."""
    from flexmbs.engine import plan_fields as pf

    run = fm.Run(pendulum(damping=0.3), t_end=0.05)
    compiled, plan = run._run, run._run.plan
    assert pf._compiled_words_work()
    fields = {k: v for k, v in plan._held.items() if k in pf._PLAN_OF}
    fields.update(cur=compiled.cur, new=compiled.new, coef=compiled.coef)
    names = tuple(fields)
    words = pf._compiled_words(names, fields.values())
    assert words is not None and words.tolist() == pf._words_of(names, fields.values())

    class Marked(np.ndarray):
        pass

    for wrong in (np.zeros(3, dtype=np.int64), np.zeros((3, 1)), np.arange(6.0)[::2], np.zeros(3).view(Marked),
                  np.zeros(3, dtype=np.float32)):
        assert pf._compiled_words(("zs",), (wrong,)) is None
    subclass = np.arange(3.0).view(Marked)  # taken by the Python reading, as before
    assert pf._words_of(("zs",), (subclass,))[1:3] == [8, subclass.ctypes.data]


def test_a_plan_is_written_alike_from_keywords_and_from_names_and_values():
    """The ``id`` of the arrays packed are read as the list's own item pointers (issue 41: 1 µs for a plan, not 10):
    exactly ``id`` of each item, for a list of any objects (a tuple or an empty list: ``id`` per item); a plan made
    from names and values (``new_plan_of``, the plan's ≈ 110 fields) holds the same struct words and values as one
    made from keywords (``new_plan``)."""
    from flexmbs.engine import plan_fields as pf

    items = [np.zeros(2), 1.5, "text", None, np.zeros(3, dtype=np.int64)]
    assert pf._LIST_VIEW
    assert pf._object_ids(items).tolist() == [id(x) for x in items]
    assert pf._object_ids(tuple(items)).tolist() == [id(x) for x in items] and pf._object_ids([]).size == 0
    plan = fm.Run(pendulum(damping=0.3), t_end=0.05)._run.plan
    fields = {k: v for k, v in plan._held.items() if k in pf._PLAN_OF}
    held_a, held_b = {}, {}
    a, b = pf.new_plan(held_a, **fields), pf.new_plan_of(held_b, tuple(fields), tuple(fields.values()))

    def words(struct):
        return np.frombuffer(pf._WORDS.from_address(struct._meminfo.data), dtype=np.int64).tolist()

    assert words(a) == words(b) and any(words(a))
    assert held_a.keys() == held_b.keys() == fields.keys()
    assert all(held_a[k] is held_b[k] is fields[k] for k in fields)


def test_the_plan_and_a_callback_have_numbas_own_types():
    """The plan's and a signal callback's numba types are found without numba's generic typeof (issue 41): they
    are the very type objects numba's own rules give (the struct's type; a ctypes function's from its prototype),
    so a compiled call from Python selects the same machine code."""
    from numba import typeof
    from numba.core.typing.ctypes_utils import make_function_type

    from flexmbs.engine.evaluate import evaluator
    from flexmbs.engine.plan_fields import PLAN_TYPE

    plan = evaluator(System(pendulum())).plan
    assert typeof(plan.struct) is plan.struct._type is PLAN_TYPE
    assert typeof(plan.callback) is make_function_type(plan.callback)
    assert typeof(plan.force_callback) is make_function_type(plan.force_callback)


def test_a_nested_plan_array_that_is_not_contiguous_is_refused_naming_its_place():
    """A member of a nested tuple (the Python parts' buffers ``ws[21]``) with the right type but not contiguous is a
    one-line TypeError naming the field and the member's place; the plan keeps its arrays."""
    system = System(pendulum())
    from flexmbs.engine.evaluate import evaluator
    plan = evaluator(system).plan
    bad = list(plan.ws[21])
    bad[4] = np.zeros((4, 6))[:, ::2]  # py_loads: a float64 2-d array, strided
    with pytest.raises(TypeError, match=r"'py\[4\]'.*C-contiguous") as err:
        pack(plan.struct, {}, py=tuple(bad))
    assert "\n" not in str(err.value)
    with pytest.raises(TypeError, match=r"'py'.*a tuple of 12"):
        pack(plan.struct, {}, py=tuple(bad[:11]))


def test_an_equation_is_named_as_in_the_list_of_all_names():
    """``equation_name(system, i)`` (the run's end names only the equations that limited steps) and
    ``equation_names(system)`` name every equation in the Newton system's order: bodies' coordinates, element
    states, kept constraint rows (a planar hydraulic model: the race's arm, its circuit's states and the planar
    guide's rows)."""
    import importlib.util
    import os

    from flexmbs.engine.equations import constraint_row_owner, equation_name, equation_names
    from flexmbs.engine.start import consistent_start

    path = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "race_hydraulic.py")
    spec = importlib.util.spec_from_file_location("race_hydraulic_names", path)
    race = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(race)
    for model in (race.flexmbs_model(), pendulum(damping=0.3)):
        system = System(model)
        consistent_start(system, False)
        names = equation_names(system)
        assert len(names) == system.n_q + system.n_z + system.n_c
        assert [equation_name(system, i) for i in range(len(names))] == names
        body, n_q = system.bodies[0], system.n_q
        assert names[:8] == [f"motion of body {body.name!r} ({c})" for c in ("x", "y", "z", "e0", "e1", "e2", "e3")] + (
            [f"motion of body {body.name!r} (mode 1)"] if body.n_modes else names[7:8])
        assert names[n_q:n_q + system.n_z] == [f"state {s!r} of element {element.name!r}"
                                               for element in system.elements for s in element.state_names]
        assert names[n_q + system.n_z:] == [constraint_row_owner(system, r) for r in range(system.n_c)]
