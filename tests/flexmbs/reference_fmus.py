"""The Modelica Reference FMUs (https://github.com/modelica/Reference-FMUs, 2-clause BSD), built from source for
FMI 2.0 with this machine's compiler and cmake, cached in ``~/.cache/flexmbs/reference-fmus/<commit>``.

The source is the git repository named by ``FLEXMBS_REFERENCE_FMUS`` (a URL or a path), else a local mirror when
one exists, else GitHub. Nothing is committed as a binary: the FMUs are built during the test run.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

CANDIDATES = [os.environ.get("FLEXMBS_REFERENCE_FMUS"), "/work/.mirror/modelica+Reference-FMUs/repo",
              "https://github.com/modelica/Reference-FMUs.git"]
MODELS = ("Dahlquist", "VanDerPol", "Feedthrough", "BouncingBall")


def _run(*args, cwd=None) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip()[-800:]}")
    return done.stdout


def reference_fmus() -> dict[str, str]:
    """``{model: path of its .fmu}`` for :data:`MODELS` (built once per source commit)."""
    errors = []
    for source in filter(None, CANDIDATES):
        if not source.startswith("http") and not os.path.exists(source):
            continue
        try:
            return _built(source)
        except RuntimeError as exc:
            errors.append(f"{source}: {exc}")
    raise RuntimeError("the Reference FMUs could not be built: " + "; ".join(errors))


def _built(source: str) -> dict[str, str]:
    cache = os.path.join(os.path.expanduser("~"), ".cache", "flexmbs", "reference-fmus")
    with tempfile.TemporaryDirectory(prefix="reference_fmus_") as work:
        checkout = os.path.join(work, "src")
        _run("git", "clone", "--quiet", "--depth", "1", source if source.startswith("http") else
             "file://" + os.path.abspath(source), checkout)
        commit = _run("git", "rev-parse", "HEAD", cwd=checkout).strip()
        target = os.path.join(cache, commit)
        found = {m: os.path.join(target, f"{m}.fmu") for m in MODELS}
        if all(os.path.isfile(p) for p in found.values()):
            return found
        build = os.path.join(work, "build")
        os.makedirs(build)
        cmake = shutil.which("cmake") or "cmake"
        _run(cmake, checkout, "-DFMI_VERSION=2", "-DCMAKE_BUILD_TYPE=Release", cwd=build)
        _run(cmake, "--build", ".", "--target", *MODELS, cwd=build)
        os.makedirs(target, exist_ok=True)
        for model, path in found.items():
            shutil.copy(os.path.join(build, "fmus", f"{model}.fmu"), path + ".part")
            os.replace(path + ".part", path)
        return found
