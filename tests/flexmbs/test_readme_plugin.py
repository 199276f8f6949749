"""The README's "Your own case" snippet installs as shown, with other folders beside the package (issue 44)."""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from study_helpers import WORKTREE  # noqa: E402


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def test_readme_case_package_installs_and_runs(tmp_path):
    readme = (WORKTREE / "README.md").read_text()
    section = readme.split("## Your own case", 1)[1].split("\n## ", 1)[0]
    (python_block,), (toml_block,) = _blocks(section, "python"), _blocks(section, "toml")
    module_path = python_block.splitlines()[0].lstrip("# ").strip()  # "my_machines/spring_mass.py"
    project = tmp_path / "project"
    (project / os.path.dirname(module_path)).mkdir(parents=True)
    (project / module_path).write_text(python_block)
    (project / os.path.dirname(module_path) / "__init__.py").write_text("")
    (project / "pyproject.toml").write_text(toml_block)
    for other in ("notes", "tests", "results"):  # flat layout: setuptools refused these beside the package
        (project / other).mkdir()
        (project / other / "x.py").write_text("")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--quiet",
                           "--target", str(site), str(project)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKTREE), str(site)])}
    listed = subprocess.run([sys.executable, "-m", "flexmbs", "cases"], capture_output=True, text=True, env=env,
                            cwd=str(tmp_path))
    assert listed.returncode == 0 and "spring-mass" in listed.stdout, listed.stderr
    ran = subprocess.run([sys.executable, "-m", "flexmbs", "run", "spring-mass", "--set", "mass=1", "--json"],
                         capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert ran.returncode == 0, ran.stderr
    amplitude = json.loads(ran.stdout)["outputs"]["amplitude_m"]
    assert abs(amplitude / (0.05 * math.sqrt(1.0 / 4.0e4)) - 1) < 1e-3  # v0/ω, rtol 1e-6 run sampled finely
