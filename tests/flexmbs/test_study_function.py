"""``fm.study`` of a model written in a plain script (issue 44): the function travels to two local Dask workers, the
study resumes, its table has the columns of a case study, and warnings are one line, kept per variant."""
from __future__ import annotations

import json
import math
import os
import re
import socket
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
        if sys.argv[2:] == ["as-with-bokeh"]:  # the dashboard's server asks for port 8787 as with bokeh installed
            import flexmbs.studies.study

            flexmbs.studies.study._has_bokeh = lambda: True
        result = fm.study(spring_mass, vary={"mass": [1.0, 4.0]}, fixed={"stiffness": 4.0e4}, outputs=outputs,
                          workers=2, out=sys.argv[1], progress=True)
        print(json.dumps({"finished": result.n_finished, "skipped": result.n_skipped, "failed": result.n_failed}))
''')


def _run(script, folder, *extra):
    env = {**os.environ, "PYTHONPATH": str(WORKTREE)}
    done = subprocess.run([sys.executable, str(script), str(folder), *extra], capture_output=True, text=True, env=env,
                          cwd=str(script.parent), timeout=900)
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


def test_port_8787_taken_is_one_line_of_the_study_not_a_dask_warning(tmp_path):
    """Another program holds 8787, the port Dask's dashboard asks for (a socket here; another Dask cluster in
    practice). Dask then warned on stderr in three raw lines (and tests that allow no warning failed). Now: without
    bokeh the scheduler's web server takes any free port on 127.0.0.1 and the study says `dashboard: off`; with bokeh
    (simulated) the study names the port Dask took instead on its one scheduler line. Both studies finish, with the
    analytic period 2 pi sqrt(m/k) (1e-3)."""
    script = tmp_path / "my_model.py"
    script.write_text(SCRIPT)
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        try:
            holder.bind(("", 8787))
            holder.listen(1)
        except OSError:  # someone else holds it already: as good for this test
            pass
        runs = {mode: _run(script, tmp_path / mode, *extra)
                for mode, extra in (("plain", ()), ("with-bokeh", ("as-with-bokeh",)))}
    finally:
        holder.close()
    for mode, (summary, stderr) in runs.items():
        assert summary == {"finished": 2, "skipped": 0, "failed": 0}
        for raw in ("already in use", "Perhaps you already have a cluster", "Hosting the HTTP server", "UserWarning:"
                    " Port"):
            assert raw not in stderr, stderr
        line = [l for l in stderr.splitlines() if l.startswith("dask scheduler ")]
        assert len(line) == 1, stderr
        if mode == "plain":
            assert line[0].endswith("dashboard: off (install bokeh>=3.1 to get one)")
        else:
            port = re.search(r"dashboard: http://[^:/]+:(\d+)/status "
                             r"\(port 8787 is taken, by another Dask cluster\?\)$", line[0])
            assert port and int(port.group(1)) != 8787, line[0]
        table = pd.read_parquet(tmp_path / mode / "table.parquet")
        for _, row in table.iterrows():
            assert abs(row["period_s"] / (2 * math.pi * math.sqrt(row["mass"] / 4.0e4)) - 1) < 1e-3
