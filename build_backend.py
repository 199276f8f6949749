"""The package's build backend: setuptools' own (``setuptools.build_meta``), with the kernels' compile started early.

``pip install .`` asks for the package's metadata (:func:`prepare_metadata_for_build_wheel`) before it resolves and
downloads the dependencies, and builds the wheel after that. The compile of the kernels (``python -m
flexmbs_jit.build``, issue 42; two processes, most of the build's time) starts in the background when the metadata
is asked for, into ``build/kernels-early``, so that it runs while pip resolves, downloads and checks the
dependencies (a network-bound phase of 15-35 s); ``setup.py`` takes the kernels from there when it builds the wheel
(:func:`early_kernels`, after waiting for the compile to end) and checks that they load. A build that asks for no
metadata first (``python -m build`` from the sdist, ``pip wheel`` with some options) or whose sources changed since
compiles in ``setup.py`` as before. An editable install compiles nothing (its metadata hook is setuptools' own).

``FLEXMBS_BUILD_KERNELS=0`` skips the compile (the kernels then compile at first use); ``FLEXMBS_BUILD_EARLY=0``
compiles them in ``setup.py`` only, after the resolution (as before; for comparisons).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 (every other hook is setuptools' own)

ROOT = Path(__file__).resolve().parent
EARLY = ROOT / "build" / "kernels-early"  # its kernels, log, pid and status


def kernels_wanted() -> bool:
    return os.environ.get("FLEXMBS_BUILD_KERNELS", "1") != "0"


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """setuptools' metadata, after starting the kernels' compile in the background."""
    if kernels_wanted() and os.environ.get("FLEXMBS_BUILD_EARLY", "1") != "0":
        try:
            _start_early()
        except OSError as error:  # the wheel's build then compiles them
            print(f"build_backend: could not start the kernels' compile early ({error})", file=sys.stderr)
    return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # an exited process not reaped yet (no init process reaping orphans)
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _session() -> str:
    """This build's mark: pip's build environment (a new temporary folder for each ``pip install``) and Python."""
    return f"{sys.executable}|{os.environ.get('PYTHONPATH', '')}"


def _started() -> tuple[int, str]:
    """The pid and session of the early compile started last in this tree (ValueError/OSError: none)."""
    pid, session = (EARLY / "pid").read_text().split("\n", 1)
    return int(pid), session


def _stop_previous() -> None:
    """Stop an early compile of an earlier build of this tree still running (our own process, by its pid)."""
    try:
        pid, _ = _started()
    except (OSError, ValueError):
        return
    try:  # only if that pid is still that compile (a pid is reused once its process ended)
        ours = str(EARLY) in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        ours = False
    if ours and _alive(pid) and not (EARLY / "status.json").is_file():
        try:
            os.kill(pid, 15)
        except OSError:
            pass


def _start_early() -> None:
    _stop_previous()
    shutil.rmtree(EARLY, ignore_errors=True)
    EARLY.mkdir(parents=True)
    # pip's isolated build environment reaches the child through PYTHONPATH (its sitecustomize): kept, behind the
    # source tree; no byte code written into the source tree
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    with open(EARLY / "log", "w") as log:
        child = subprocess.Popen([sys.executable, "-m", "flexmbs_jit.build", str(ROOT), "--into",
                                  str(EARLY / "kernels"), "--no-check", "--status", str(EARLY / "status.json")],
                                 stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    (EARLY / "pid").write_text(f"{child.pid}\n{_session()}")


def _key(root: Path) -> str | None:
    """The kernels' key of the tree ``root`` (:func:`flexmbs_jit.cache.cache_key`, loaded from that tree alone)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_flexmbs_jit_cache_of_build", root / "flexmbs_jit" / "cache.py")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        return module.cache_key()
    except Exception:  # noqa: BLE001 (no key: the build compiles as if nothing was compiled early)
        return None


def early_kernels(build_lib: str) -> Path | None:
    """The folder of the kernels compiled early for the sources now in ``build_lib`` (waiting for the compile to
    end), or None when there is none (not started by this build, failed, or for other sources)."""
    if os.environ.get("FLEXMBS_BUILD_EARLY", "1") == "0":
        return None
    try:
        pid, session = _started()
    except (OSError, ValueError):
        return None
    if session != _session():  # left by another build
        return None
    status = EARLY / "status.json"
    start = time.perf_counter()
    while not status.is_file() and _alive(pid):
        time.sleep(0.2)
    try:
        done = json.loads(status.read_text())
    except (OSError, ValueError):
        return None
    key = _key(Path(build_lib))
    if not done.get("ok") or done.get("keys") != [key]:
        return None
    try:  # the compile's own line (its time and CPU)
        line = [x for x in (EARLY / "log").read_text().splitlines() if x.startswith("flexmbs_jit.build:")][-1]
    except (OSError, IndexError):
        line = ""
    print(f"build_backend: the kernels compiled while pip resolved the dependencies (waited "
          f"{time.perf_counter() - start:.0f} s for the end): {line}", file=sys.stderr)
    return EARLY / "kernels" / key
