"""The README's Python API example runs as printed, without a warning, and its hanging pendulum's first frequency is
the rigid bar's ``√(3g/2L) / 2π`` = 0.6105 Hz (L = 1 m; the bar's first bending mode is 42 Hz, so its flexibility
moves the pendulum frequency by far less than the 0.5 % tolerance)."""
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_readme_python_api_example_runs_without_warnings(tmp_path):
    readme = (ROOT / "README.md").read_text()
    code = readme.split("## Python API", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    (tmp_path / "example.py").write_text(code)
    env = dict(os.environ, PYTHONPATH=str(ROOT), FLEXMBS_COMPILE_NOTICE="0")
    done = subprocess.run([sys.executable, "-W", "error::UserWarning", "example.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "warning" not in done.stderr.lower(), done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("integration finished")
    first = float(re.match(r"\s*([0-9.]+) Hz", lines[2]).group(1))
    assert abs(first - math.sqrt(3 * 9.81 / 2.0) / (2 * math.pi)) < 0.005 * 0.6105
