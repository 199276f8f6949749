"""The package build: everything is in pyproject.toml, except that the built tree's kernels are compiled into it
(``python -m flexmbs_jit.build``, issue 42), so the first run after ``pip install .`` loads them instead of compiling;
``build_backend.py`` starts that compile while pip resolves the dependencies, and the build then only checks it.
``FLEXMBS_BUILD_KERNELS=0`` skips that (the kernels then compile at first use); an editable install skips it too."""
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 has its own; before, the wheel package's
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    from wheel.bdist_wheel import bdist_wheel


def _kernels_wanted() -> bool:
    return os.environ.get("FLEXMBS_BUILD_KERNELS", "1") != "0"


def _early_kernels(build_lib):
    """The kernels compiled early for these sources by ``build_backend.py`` (None without that backend)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        from build_backend import early_kernels
    except ImportError:
        return None
    finally:
        sys.path.pop(0)
    return early_kernels(build_lib)


class BuildWithKernels(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False) or not _kernels_wanted():
            return
        shutil.rmtree(os.path.join(self.build_lib, "flexmbs_jit", "kernels"), ignore_errors=True)  # an older build's
        # pip's isolated build environment reaches the child through PYTHONPATH (its sitecustomize): kept, behind
        # the built tree
        path = os.pathsep.join(p for p in (os.path.abspath(self.build_lib), os.environ.get("PYTHONPATH")) if p)
        command = [sys.executable, "-m", "flexmbs_jit.build", os.path.abspath(self.build_lib)]
        early = _early_kernels(self.build_lib)
        if early is not None:  # compiled while pip resolved the dependencies (build_backend.py): copied, checked
            shutil.copytree(early, os.path.join(self.build_lib, "flexmbs_jit", "kernels", early.name))
            shutil.rmtree(early.parents[1], ignore_errors=True)
            command.append("--check-only")
        subprocess.call(command, env=dict(os.environ, PYTHONPATH=path))


class PlatformWheel(bdist_wheel):
    """A wheel that carries compiled kernels is tagged for this Python and platform (``cp311-cp311-linux_x86_64``),
    not ``py3-none-any``: the kernels are machine code for one Python version (their cache key includes it). Another
    CPU level of the same platform still runs: numba recompiles there, with the one-line compile notice."""

    def finalize_options(self):
        super().finalize_options()
        if _kernels_wanted():
            self.root_is_pure = False


setup(cmdclass={"build_py": BuildWithKernels, "bdist_wheel": PlatformWheel})
