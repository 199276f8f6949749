"""The kernels' compile (issue 42): a key over all compiled sources, functions compiled apart, the notice.

The edit tests build a tiny project in a temporary folder (a copy of :mod:`flexmbs_jit` beside a package named like
one of the project's) and run it in fresh processes, so they take seconds and never touch the real kernel cache.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LEAF = """
from flexmbs_jit import njit

SCALE = {scale}


@njit
def leaf(x):
    return SCALE * x
"""

TOP = """
from flexmbs_jit import apart, njit

from .leaf import leaf


@apart
def one(x):
    return 0.5 * x


@apart
def two(x):
    return x - one(x)


@apart
def middle(x, flag):
    if flag:
        return leaf(x) + one(x) + two(x) - x + 1.0
    if x > 1e300:
        raise ValueError("x too large")
    return leaf(x)


@njit
def top(x):
    return middle(x, True) + middle(x, False)
"""

RUN = """
import sys
from numba.core import event
compiles = []
event.register("numba:compile", type("L", (event.Listener,), {{"on_start": lambda s, e: compiles.append(1),
                                                               "on_end": lambda s, e: None}})())
from {package}.top import top
print(top(2.0), len(compiles))
"""


def _project(tmp_path: Path, package: str = "hydraulics") -> Path:
    root = tmp_path / "project"
    shutil.copytree(ROOT / "flexmbs_jit", root / "flexmbs_jit", ignore=shutil.ignore_patterns("kernels", "__pycache__"))
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    (root / package / "leaf.py").write_text(LEAF.format(scale=2.0))
    (root / package / "top.py").write_text(TOP)
    return root


def _run(root: Path, cache: Path, package: str = "hydraulics", notice: str = "0") -> tuple[float, int, str]:
    env = dict(os.environ, PYTHONPATH=str(root), FLEXMBS_KERNEL_CACHE=str(cache), FLEXMBS_COMPILE_NOTICE=notice)
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", RUN.format(package=package)], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    value, compiles = done.stdout.split()
    return float(value), int(compiles), done.stderr


def test_an_edited_callee_in_another_file_is_recompiled(tmp_path):
    """top(2) = (2·SCALE + 1) + 2·SCALE: 9 with SCALE 2, 13 after the edit to SCALE 3 in leaf.py. The second run
    loads everything (0 compiles); after the edit the cached ``top`` (whose own file did not change) is not loaded
    (numba alone keys each function by its own file and would return the stale 9)."""
    root, cache = _project(tmp_path), tmp_path / "cache"
    value, compiles, _ = _run(root, cache)
    assert value == 9.0 and compiles >= 3  # leaf, middle (apart), top
    value, compiles, _ = _run(root, cache)
    assert (value, compiles) == (9.0, 0)
    (root / "hydraulics" / "leaf.py").write_text(LEAF.format(scale=3.0))
    value, compiles, _ = _run(root, cache)
    assert value == 13.0 and compiles >= 3


def test_the_key_covers_compiled_sources_and_their_imports(tmp_path):
    """An edit of a compiled file or of a module it imports changes the key; an edit elsewhere does not."""
    root = _project(tmp_path)
    (root / "hydraulics" / "other.py").write_text("VALUE = 1\n")
    (root / "hydraulics" / "constants.py").write_text("GAIN = 1.0\n")
    (root / "hydraulics" / "leaf.py").write_text(LEAF.format(scale=2.0) + "from .constants import GAIN\n")
    code = "from flexmbs_jit.cache import cache_key; print(cache_key())"
    key = lambda: subprocess.run([sys.executable, "-c", code], cwd=root, env=dict(os.environ, PYTHONPATH=str(root)),  # noqa: E731
                                 capture_output=True, text=True, check=True).stdout.strip()
    first = key()
    (root / "hydraulics" / "other.py").write_text("VALUE = 2\n")
    assert key() == first
    (root / "hydraulics" / "constants.py").write_text("GAIN = 2.0\n")
    second = key()
    assert second != first
    (root / "hydraulics" / "top.py").write_text(TOP + "\n# a comment\n")
    assert key() != second


def test_exceptions_propagate_through_a_function_compiled_apart(tmp_path):
    """``middle`` raises inside compiled code called by address: Python sees the ValueError, as for a linked call."""
    root = _project(tmp_path)
    code = ("from hydraulics.top import top\n"
            "try:\n    top(1e301)\nexcept ValueError as exc:\n    print('raised', exc)\n")
    env = dict(os.environ, PYTHONPATH=str(root), FLEXMBS_KERNEL_CACHE=str(tmp_path / "cache"))
    for _ in range(2):  # compiled, then loaded from the cache
        done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.stdout.strip() == "raised x too large", done.stderr


def test_a_compile_says_so_in_one_line(tmp_path):
    root, cache = _project(tmp_path), tmp_path / "cache"
    _, _, stderr = _run(root, cache, notice="1")
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and re.match(r"flexmbs: compiling .*\(.*about \d+ s of CPU.*Ctrl-C stops it\)$", lines[0])
    assert _run(root, cache, notice="1")[2].strip() == ""  # loaded: nothing to say


def test_every_compiled_module_takes_its_decorators_from_flexmbs_jit():
    """numba's own ``njit``/``cfunc`` would cache by the function's file alone (the stale-kernel hazard)."""
    offenders = []
    for package in ("fem", "reduction", "flexmbs", "hydraulics", "cases"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text()
            if re.search(r"^\s*from numba import [^\n]*\b(njit|cfunc|jit)\b|numba\.(njit|cfunc|jit)\(", text, re.M):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_the_build_ships_kernels_that_load_without_compiling(tmp_path):
    """``python -m flexmbs_jit.build`` on a copy of the tiny project: a fresh process then loads every kernel from
    the shipped folder's copy (0 compiles), even after the folder was moved."""
    root = _project(tmp_path)
    shutil.copy(ROOT / "flexmbs_jit" / "build.py", root / "flexmbs_jit" / "build.py")
    (root / "hydraulics" / "warm.py").write_text("def warm_up():\n    from .top import top\n    top(2.0)\n")
    done = subprocess.run([sys.executable, "-m", "flexmbs_jit.build", str(root), "--jobs", "2", "--warm-up",
                           "hydraulics.warm"], cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "compiled the kernels" in done.stderr, done.stderr
    assert "compiled 0 kernels again" not in done.stderr and "again" not in done.stderr, done.stderr
    moved = tmp_path / "moved"
    shutil.move(str(root), str(moved))
    env = dict(os.environ, PYTHONPATH=str(moved), XDG_CACHE_HOME=str(tmp_path / "home-cache"))
    env.pop("FLEXMBS_KERNEL_CACHE", None)
    shipped = moved / "flexmbs_jit" / "kernels"
    before = sorted(str(p.relative_to(shipped)) for p in shipped.rglob("*"))
    run = subprocess.run([sys.executable, "-c", RUN.format(package="hydraulics")], cwd=moved, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["9.0", "0"]
    # the installed package is only read: its kernels are copied once into the user's cache, nothing written beside
    # them (files a run added there outlived `pip uninstall` and hid a later editable install)
    assert sorted(str(p.relative_to(shipped)) for p in shipped.rglob("*")) == before
    assert any((tmp_path / "home-cache" / "flexmbs" / "kernels").iterdir())


def test_the_kernels_compiled_while_pip_resolves_are_the_ones_shipped(tmp_path):
    """The build backend (``build_backend.py``) starts the compile when pip asks for the metadata, in the
    background; the wheel's build takes those kernels if they were compiled for its own sources by this build: a
    fresh process then loads every kernel (0 compiles). After an edit of a compiled source, or in another build (a
    new pip build environment), nothing compiled early is taken."""
    root = _project(tmp_path)
    shutil.copy(ROOT / "flexmbs_jit" / "build.py", root / "flexmbs_jit" / "build.py")
    shutil.copy(ROOT / "build_backend.py", root / "build_backend.py")
    for package in ("flexmbs", "flexmbs/engine"):  # the engine's warm-up, as the build finds it
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").write_text("")
    (root / "flexmbs" / "engine" / "warmup.py").write_text(
        "def warm_up():\n    from hydraulics.top import top\n    top(2.0)\n")
    env = dict(os.environ, PYTHONPATH=str(root), FLEXMBS_COMPILE_NOTICE="0")
    env.pop("FLEXMBS_BUILD_EARLY", None)
    env.pop("FLEXMBS_BUILD_KERNELS", None)
    start = subprocess.run([sys.executable, "-c", "import build_backend; build_backend._start_early()"], cwd=root,
                           env=env, capture_output=True, text=True, timeout=600)
    assert start.returncode == 0, start.stderr
    built = tmp_path / "built"  # the wheel's tree: the same sources
    shutil.copytree(root, built, ignore=shutil.ignore_patterns("build", "__pycache__"))
    take = ("import sys, build_backend; folder = build_backend.early_kernels(sys.argv[1]); "
            "print(folder.name if folder else None)")
    done = subprocess.run([sys.executable, "-c", take, str(built)], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    key = done.stdout.split()[-1]
    assert key != "None", done.stderr + (root / "build" / "kernels-early" / "log").read_text()
    shutil.copytree(root / "build" / "kernels-early" / "kernels" / key, built / "flexmbs_jit" / "kernels" / key)
    run_env = dict(os.environ, PYTHONPATH=str(built), XDG_CACHE_HOME=str(tmp_path / "home-cache"))
    run_env.pop("FLEXMBS_KERNEL_CACHE", None)
    run = subprocess.run([sys.executable, "-c", RUN.format(package="hydraulics")], cwd=built, env=run_env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["9.0", "0"]
    other = subprocess.run([sys.executable, "-c", take, str(built)], cwd=root, capture_output=True, text=True,
                           env=dict(env, PYTHONPATH=os.pathsep.join([str(root), str(tmp_path)])), timeout=600)
    assert other.stdout.split()[-1] == "None", other.stderr
    (built / "hydraulics" / "leaf.py").write_text(LEAF.format(scale=3.0))
    edited = subprocess.run([sys.executable, "-c", take, str(built)], cwd=root, env=env, capture_output=True,
                            text=True, timeout=600)
    assert edited.stdout.split()[-1] == "None", edited.stderr


def test_a_function_for_compiled_callers_only_refuses_a_python_call():
    """``@apart(python=False)`` has no Python wrapper (numba's call from Python would jump to address 0)."""
    from flexmbs_jit import apart

    def hidden(x):
        return x

    with pytest.raises(TypeError, match="compiled callers only"):
        apart(hidden, python=False, cache=False)(1.0)


def test_pruning_keeps_the_folders_other_processes_used_today(tmp_path):
    """The user cache keeps the KEEP_KEYS newest key folders and every folder used in the last KEEP_SECONDS: a
    parallel process (a second worktree) must not lose its kernels under it; older folders beyond those go."""
    import os
    import time

    from flexmbs_jit import cache

    now = time.time()
    ages = {f"{k:016x}": age for k, age in enumerate([0, 10, 20, 30, 40, 3 * 86400, 4 * 86400])}
    for name, age in ages.items():
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, (now - age, now - age))
    cache._prune(tmp_path, f"{0:016x}")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [name for name, age in sorted(ages.items()) if age < cache.KEEP_SECONDS]


def _runtime_only_modules() -> list[str]:
    """The import names of the run-time dependencies that are not build requirements (pyproject.toml)."""
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    names = lambda reqs: {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in reqs}  # noqa: E731
    imports = {"scikit-fem": "skfem", "pyyaml": "yaml"}  # distribution -> import name where they differ
    extra = names(project["project"]["dependencies"]) - names(project["build-system"]["requires"])
    return sorted(imports.get(name, name.replace("-", "_")) for name in extra)


def test_the_package_build_compiles_with_the_build_requirements_alone():
    """The package build's isolated environment has the build requirements only (pyproject's ``[build-system]``:
    no pypardiso, pyamg, h5py, meshio, scikit-fem, ...): the build's warm-ups (``flexmbs_jit.build``: the engine's
    and the circuit's) and the import of every compiled module must not need anything else, else the build ships no
    engine kernels and the user's first run compiles them all (found in session 15: 66 s of CPU on the first
    excavator run after ``pip install .``). The warm-up body's highest frequency equals that of the same reduction
    in this environment (PARDISO where installed) to 1e-9."""
    blocked = _runtime_only_modules()
    assert {"pypardiso", "pyamg", "h5py", "meshio", "skfem"} <= set(blocked)  # what session 17 took out of the build
    code = textwrap.dedent(f"""
        import importlib, sys
        from pathlib import Path
        for name in {blocked!r}:
            sys.modules[name] = None  # importing it raises ImportError
        from flexmbs_jit.build import SIDE_WARM_UPS, WARM_UPS, compiled_modules
        from flexmbs.engine.warmup import small_beam
        for name in list(WARM_UPS) + list(SIDE_WARM_UPS) + compiled_modules(Path({str(ROOT)!r})):
            module = importlib.import_module(name)
            if hasattr(module, "warm_up"):
                module.warm_up()
        print(repr(float(small_beam().frequencies_hz[-1])))
    """)
    env = dict(os.environ, FLEXMBS_COMPILE_NOTICE="0")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    from flexmbs.engine.warmup import small_beam

    assert float(done.stdout.split()[-1]) == pytest.approx(float(small_beam().frequencies_hz[-1]), rel=1e-9)


def _chain(links: int):
    """A planar chain of ``links`` rigid links (1 m, 1 kg) hanging from revolute joints, released from horizontal."""
    import flexmbs as fm

    model = fm.Model(f"chain{links}", gravity=(0.0, -9.81, 0.0), planar=True)
    previous = model.add_marker(model.ground, "top")
    for k in range(links):
        link = model.add_rigid_body(f"link{k}", mass=1.0, inertia=(1.0 / 12.0,) * 3, position=(k + 0.5, 0.0, 0.0))
        model.add_joint("revolute", previous, model.add_marker(link, f"link{k}.a", position=(-0.5, 0.0, 0.0)),
                        name=f"pin{k}")
        previous = model.add_marker(link, f"link{k}.b", position=(0.5, 0.0, 0.0))
    return model


def test_a_new_model_compiles_nothing():
    """The compiled step does not depend on the model: after one model ran, a model with other numbers of bodies,
    joints and markers runs on the compiled engine without a single compile (issue 42: each case's first run)."""
    from numba.core import event

    import flexmbs as fm

    first = fm.simulate(_chain(1), 0.05, engine="compiled")
    compiles = []
    listener = type("Count", (event.Listener,), {"on_start": lambda self, ev: compiles.append(ev.data["dispatcher"]),
                                                 "on_end": lambda self, ev: None})()
    event.register("numba:compile", listener)
    try:
        second = fm.simulate(_chain(3), 0.05, engine="compiled")
    finally:
        event.unregister("numba:compile", listener)
    assert first.statistics["engine"] == second.statistics["engine"] == "compiled"
    assert second.success and compiles == []


COUNTED = """
import numpy as np
from numba.core.errors import TypingError
from flexmbs_jit import apart, njit


def total(a):
    s = 0.0
    for k in range(a.size):
        s += a[k]
    return s


def fresh(n):
    return np.zeros(n)


summed = apart(total, python=False, counted=False)
made = apart(fresh, python=False, counted=False)


@njit
def outer(a):
    return summed(a[1:])


@njit
def allocating(n):
    return made(n)


print(outer(np.arange(5.0)))
try:
    allocating(3)
except TypingError as error:
    print("refused" if "NRT required" in str(error) or "returning of array" in str(error) else str(error))
try:
    apart(total, counted=False)
except ValueError:
    print("python entry refused")
"""


def test_a_function_without_reference_counts_reads_arrays_and_refuses_to_allocate(tmp_path):
    """``apart(counted=False)`` (numba's reference counting off, issue 42): the function reads the arrays its
    callers own (a slice too: 1 + 2 + 3 + 4 = 10), an allocation in it is refused when it compiles, and it has no
    Python entry (that one counts references)."""
    env = dict(os.environ, FLEXMBS_KERNEL_CACHE=str(tmp_path / "kernels"), FLEXMBS_COMPILE_NOTICE="0",
               PYTHONPATH=str(ROOT))
    (tmp_path / "counted.py").write_text(COUNTED)
    done = subprocess.run([sys.executable, "counted.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:3] == ["10.0", "refused", "python entry refused"]


def _numba_list_vars(inst):
    """numba 0.68's own ``Inst._rec_list_vars`` (numba/core/ir.py), the reference for the patched one."""
    from numba.core import ir

    def rec(val):
        if isinstance(val, ir.Var):
            return [val]
        if isinstance(val, ir.Inst):
            if isinstance(val, ir.Expr):
                return rec(val._kws)
            if type(val).list_vars is ir.Stmt.list_vars:
                return rec(val.__dict__)
            return val.list_vars()
        if isinstance(val, (list, tuple)):
            return [v for item in val for v in rec(item)]
        if isinstance(val, dict):
            return [v for item in val.values() for v in rec(item)]
        return []
    return rec(inst)


def test_numba_patches_give_numba_answers():
    """The patches of numba's Python in :mod:`flexmbs_jit` (issue 42) answer as numba does: compile flags equal
    by their values (an option set to its default equals one left unset; equal flags hash alike), and the
    variables of every statement of a function's IR listed in numba's order."""
    import numpy as np
    from numba.core import compiler, ir
    from numba.core.compiler import Flags

    import flexmbs_jit  # noqa: F401 (installs the patches)

    a, b, c = Flags(), Flags(), Flags()
    a.nrt, b.nrt, b.no_cpython_wrapper = True, True, False
    c.nrt, c.error_model = True, "numpy"
    assert a == b and hash(a) == hash(b) and a != c and {a: 1}[b] == 1 and c not in {a: 1}

    def sample(x, n):
        s = 0.0
        for k in range(n):
            s += x[k] * (k + 1) if k % 2 else -x[k]
        y = np.empty(3)
        y[0], y[1] = s, min(s, 1.0)
        return y, (s, n)

    statements = [stmt for block in compiler.run_frontend(sample).blocks.values() for stmt in block.body]
    assert len(statements) > 30
    for stmt in statements:
        assert [v.name for v in stmt.list_vars()] == [v.name for v in _numba_list_vars(stmt)]
    assert any(isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr) for stmt in statements)
