"""The package build: everything is in pyproject.toml, except that the built tree's kernels are compiled into it
(``python -m flexmbs_jit.build``, issue 42), so the first run after ``pip install .`` loads them instead of compiling.
``FLEXMBS_BUILD_KERNELS=0`` skips that (the kernels then compile at first use); an editable install skips it too."""
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithKernels(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False) or os.environ.get("FLEXMBS_BUILD_KERNELS", "1") == "0":
            return
        shutil.rmtree(os.path.join(self.build_lib, "flexmbs_jit", "kernels"), ignore_errors=True)  # an older build's
        # pip's isolated build environment reaches the child through PYTHONPATH (its sitecustomize): kept, behind
        # the built tree
        path = os.pathsep.join(p for p in (os.path.abspath(self.build_lib), os.environ.get("PYTHONPATH")) if p)
        subprocess.call([sys.executable, "-m", "flexmbs_jit.build", os.path.abspath(self.build_lib)],
                        env=dict(os.environ, PYTHONPATH=path))


setup(cmdclass={"build_py": BuildWithKernels})
