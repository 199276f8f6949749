"""``fm.study`` of a model written in a plain script (issue 44): the function travels to two local Dask workers, the
study resumes, its table has the columns of a case study, and warnings are one line, kept per variant."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap

import pandas as pd

from flexmbs.studies.study import META

sys.path.insert(0, os.path.dirname(__file__))
from study_helpers import WORKTREE  # noqa: E402

# a mass on a bushing released with speed v0: period 2π sqrt(m/k), amplitude v0 sqrt(m/k)
SCRIPT = textwrap.dedent('''
    import json
    import sys
    import warnings

    import numpy as np

    import flexmbs as fm


    def spring_mass(mass=2.5, stiffness=4.0e4, initial_speed=0.05, out=None):
        """A mass on a bushing released with an initial speed."""
        if mass > 3.0:
            warnings.warn(f"heavy mass {mass} kg\\n(second line)", UserWarning)
        model = fm.Model("spring-mass")
        body = model.add_rigid_body("mass", mass=mass, inertia=(0.1, 0.1, 0.1), velocity=(0.0, initial_speed, 0.0))
        model.add_force(fm.Bushing(model.add_marker(model.ground, "base"), model.add_marker(body, "mount"),
                                   translational_stiffness=(stiffness,) * 3, rotational_stiffness=(1e3,) * 3))
        return fm.simulate(model, 0.1, rtol=1e-6, atol=1e-9, output=out)


    def outputs(res):
        y, t = res["body/mass/position"][1:, 1], res.time[1:]
        i = np.flatnonzero(np.sign(y[:-1]) * np.sign(y[1:]) < 0)
        crossings = t[i] - y[i] * (t[i + 1] - t[i]) / (y[i + 1] - y[i])
        return {"period_s": float(2.0 * np.mean(np.diff(crossings))), "amplitude_m": float(np.max(np.abs(y)))}


    if __name__ == "__main__":
        result = fm.study(spring_mass, vary={"mass": [1.0, 4.0]}, fixed={"stiffness": 4.0e4}, outputs=outputs,
                          workers=2, out=sys.argv[1], progress=True)
        print(json.dumps({"finished": result.n_finished, "skipped": result.n_skipped, "failed": result.n_failed}))
''')


def _run(script, folder):
    env = {**os.environ, "PYTHONPATH": str(WORKTREE)}
    done = subprocess.run([sys.executable, str(script), str(folder)], capture_output=True, text=True, env=env,
                          cwd=str(script.parent))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_a_script_model_studied_on_two_workers_resumes_with_the_case_table(tmp_path):
    script = tmp_path / "my_model.py"
    script.write_text(SCRIPT)
    first, stderr = _run(script, tmp_path / "study")
    assert first == {"finished": 2, "skipped": 0, "failed": 0}
    table = pd.read_parquet(tmp_path / "study" / "table.parquet")
    # the columns of a case study: its meta columns, the varied key and the outputs
    assert set(table.columns) == set(META) | {"mass", "period_s", "amplitude_m"}
    for _, row in table.iterrows():
        period = 2 * math.pi * math.sqrt(row["mass"] / 4.0e4)  # stiffness fixed at 4e4 N/m
        assert abs(row["period_s"] / period - 1) < 1e-3  # rtol 1e-6 integration, crossings interpolated linearly
        assert abs(row["amplitude_m"] / (0.05 * period / (2 * math.pi)) - 1) < 1e-3
    # the warning of the heavy variant: one line, in its row of the table and on stderr, never a path or source line
    heavy = table[table["mass"] == 4.0].iloc[0]
    assert heavy["warnings"] == "UserWarning: heavy mass 4.0 kg (second line)"
    assert table[table["mass"] == 1.0].iloc[0]["warnings"] == ""
    lines = [l for l in stderr.splitlines() if "heavy mass" in l]
    assert len(lines) == 1 and lines[0].endswith(f"warning: {heavy['variant']}: UserWarning: heavy mass 4.0 kg "
                                                 "(second line)")
    assert ".py:" not in stderr and "warnings.warn" not in stderr
    manifest = json.loads((tmp_path / "study" / "study.json").read_text())
    assert manifest["case"] == "spring-mass" and manifest["varied"] == ["mass"]
    again, _ = _run(script, tmp_path / "study")  # resumed: nothing left to run
    assert again == {"finished": 2, "skipped": 2, "failed": 0}
    assert pd.read_parquet(tmp_path / "study" / "table.parquet").equals(table)
