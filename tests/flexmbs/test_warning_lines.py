"""Warnings of the project print as one line in Python too, without a file path or a source line (issue 44)."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

WORKTREE = pathlib.Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent('''
    import warnings
    import flexmbs as fm
    from flexmbs.results.plausibility import PlausibilityWarning

    warnings.warn("pressure 112.5 bar in P\\n  above every relief setting", PlausibilityWarning)
    warnings.warn("a plain user warning", UserWarning)
''')


def test_project_warnings_are_one_line_and_others_keep_pythons_format(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(WORKTREE)}, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    ours = [l for l in lines if "112.5 bar" in l]
    assert ours == ["warning: PlausibilityWarning: pressure 112.5 bar in P above every relief setting"]
    assert not any("PlausibilityWarning" in l and ".py:" in l for l in lines)
    assert any("user_script.py:" in l and "UserWarning: a plain user warning" in l for l in lines)  # untouched
