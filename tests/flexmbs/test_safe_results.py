"""Results files that cannot be lost (issue 17): a run failing at t = 0 keeps the earlier file, two runs on one
name cannot corrupt each other, a full disk and a kill -9 leave a readable partial file, and `flexmbs info` on
the target name finds that partial file.

Physics reference everywhere: a free fall z = -g t²/2 (exact for the generalized-α method on constant
acceleration up to round-off, so 1e-9 m) or an undamped spring-mass oscillation (analytic, tolerance from rtol).
"""
import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import flexmbs as fm
from safe_helpers import assert_free_fall, falling_mass
from flexmbs.cli.app import main
from flexmbs.results.results import ResultsWriter

ROOT = str(Path(fm.__file__).parents[1])
ENV = {**os.environ, "PYTHONPATH": ROOT, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


class FailAfterStart(fm.PointForce):
    """A force element whose model breaks as soon as time advances (a run that fails at t = 0)."""

    def generalized_forces(self, ctx):
        if ctx.t > 0.0:
            raise fm.SimulationError("the model broke at the first step")
        return []


def test_a_run_failing_at_t0_keeps_the_earlier_good_file(tmp_path):
    path = tmp_path / "run.results.h5"
    good = fm.simulate(falling_mass(), 0.5, output=str(path))
    assert good.success
    before = path.read_bytes()
    model = falling_mass()
    model.add_force(FailAfterStart(model.add_marker(model.body("ball"), "m"), force=(0, 0, 0), name="fail"))
    bad = fm.simulate(model, 0.5, output=str(path))
    assert bad.status == "failed" and "broke" in bad.message and bad.time.size == 1
    assert path.read_bytes() == before  # byte for byte the earlier file
    back = fm.load_results(str(path))
    assert back.status == "finished"
    assert_free_fall(back)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.results.h5"]  # no .part, .lock, .reserve left


def test_a_run_failing_at_t0_writes_its_file_when_there_was_none(tmp_path):
    path = tmp_path / "new.results.h5"
    model = falling_mass()
    model.add_force(FailAfterStart(model.add_marker(model.body("ball"), "m"), force=(0, 0, 0), name="fail"))
    fm.simulate(model, 0.5, output=str(path))
    back = fm.load_results(str(path))
    assert back.status == "failed" and "broke" in back.message and back.time.size == 1
    result = CliRunner().invoke(main, ["plot", str(path), "body/ball/position", "--out", str(tmp_path / "p.png")])
    assert result.exit_code == 2 and "nothing to plot" in result.stderr and len(result.stderr.splitlines()) == 1


SLOW_RUN = """
import sys, time
import flexmbs as fm
model = fm.Model("free fall", gravity=(0, 0, -9.81))
ball = model.add_rigid_body("ball", 1.0, (1e-3, 1e-3, 1e-3))
class Slow(fm.PointForce):
    def generalized_forces(self, ctx):
        time.sleep(float(sys.argv[2]))
        return []
model.add_force(Slow(model.add_marker(ball, "m"), force=(0, 0, 0), name="slow"))
res = fm.simulate(model, float(sys.argv[3]), output=sys.argv[1], max_step=0.01)
print(res.status)
"""


def _start(tmp_path, path, pause, t_end):
    script = tmp_path / "slow.py"
    script.write_text(SLOW_RUN)
    return subprocess.Popen([sys.executable, str(script), str(path), str(pause), str(t_end)], env=ENV,
                            cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(predicate, timeout=120.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_second_run_on_the_same_name_is_refused_and_the_first_stays_intact(tmp_path):
    path = tmp_path / "shared.results.h5"
    first = _start(tmp_path, path, 0.002, 1.0)
    try:
        assert _wait_for(lambda: Path(str(path) + ".lock").exists() and list(tmp_path.glob("*.part")))
        with pytest.raises(fm.FlexmbsError, match=f"pid {first.pid}"):
            fm.simulate(falling_mass(), 0.2, output=str(path))
        result = CliRunner().invoke(main, ["run", "slider-crank", "-o", str(path), "--quiet"])
        assert result.exit_code == 2 and f"pid {first.pid}" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    finally:
        out, err = first.communicate(timeout=300)
    assert first.returncode == 0 and out.strip() == "finished", err
    back = fm.load_results(str(path))
    assert back.status == "finished" and back.time[-1] == pytest.approx(1.0)
    assert_free_fall(back)


def test_a_write_error_stops_the_run_and_keeps_a_readable_file(tmp_path, monkeypatch):
    """An injected ENOSPC on the third block written: the run ends 'failed' naming the full disk, and every sample
    written before is readable and right."""
    calls = {"n": 0}
    original = ResultsWriter._write_block

    def failing(self):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return original(self)

    monkeypatch.setattr(ResultsWriter, "_write_block", failing)
    path = tmp_path / "full.results.h5"
    model = falling_mass()
    res = fm.simulate(model, 1.0, output=str(path), max_step=1e-3)
    assert res.status == "failed" and "disk full" in res.message
    back = fm.load_results(str(path))
    assert back.status == "failed" and "disk full" in back.message and 0.0 < back.time[-1] < 1.0
    assert_free_fall(back)


FILL_AND_RUN = """
set -e
mount -t tmpfs -o size=6m tmpfs "$1"
dd if=/dev/zero of="$1/filler" bs=1k count=3300 2>/dev/null
"$2" "$3" "$1/full.results.h5" > "$1/out.txt" 2>&1 || true
cat "$1/out.txt"
ls "$1"
"$2" -c "import flexmbs as fm, glob, sys; r = fm.load_results((glob.glob('$1/full.results.h5') or glob.glob('$1/*.part'))[0]); print('READ', r.status, r.time.size, r.time[-1], abs(r['body/ball/position'][:, 2] + 4.905 * r.time**2).max())"
"""

BIG_RUN = """
import sys
import flexmbs as fm
model = fm.Model("free fall", gravity=(0, 0, -9.81))
model.add_rigid_body("ball", 1.0, (1e-3, 1e-3, 1e-3))
res = fm.simulate(model, 100.0, output=sys.argv[1], max_step=2e-3)
print("STATUS", res.status, "|", res.message)
"""


@pytest.mark.slow
def test_a_full_disk_leaves_a_readable_file(tmp_path):
    """A real ENOSPC: a 6 MB tmpfs (private mount namespace) with about 2.7 MB free, a run that needs more."""
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare(1) to mount a private tmpfs")
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=1m tmpfs {tmp_path}"],
                           capture_output=True)
    if probe.returncode:
        pytest.skip("cannot mount a tmpfs here (no mount namespace privileges)")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = tmp_path / "big.py"
    script.write_text(BIG_RUN)
    done = subprocess.run(["unshare", "-m", "sh", "-c", FILL_AND_RUN, "sh", str(mnt), sys.executable, str(script)],
                          capture_output=True, text=True, env=ENV, timeout=600)
    text = done.stdout + done.stderr
    assert "Traceback" not in text, text
    assert "STATUS failed" in text and ("disk full" in text or "no space" in text.lower()), text
    read = [line for line in text.splitlines() if line.startswith("READ")]
    assert read, text
    _, status, n, t_last, error = read[0].split()
    assert int(n) > 100 and 0.0 < float(t_last) < 100.0 and float(error) < 1e-6, read


def test_kill_9_leaves_a_readable_part_that_info_and_plot_find(tmp_path):
    path = tmp_path / "killed.results.h5"
    run = _start(tmp_path, path, 0.001, 50.0)
    try:
        def enough():
            parts = list(tmp_path.glob("killed.results.h5.*.part"))
            if not parts:
                return False
            try:
                return fm.load_results(str(parts[0])).time.size > 50
            except fm.FlexmbsError:
                return False

        assert _wait_for(enough)
    finally:
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
    assert not path.exists()
    (part,) = tmp_path.glob("killed.results.h5.*.part")
    kept = fm.load_results(str(part))
    assert kept.status == "running" and kept.time.size > 50
    assert_free_fall(kept)
    runner = CliRunner()
    info = runner.invoke(main, ["info", str(path)])
    assert info.exit_code == 0 and part.name in info.stderr and "partial file" in info.stderr
    plot = runner.invoke(main, ["plot", str(path), "body/ball/position", "--out", str(tmp_path / "p.csv")])
    assert plot.exit_code == 0 and part.name in plot.stderr
    assert (tmp_path / "p.csv").exists()
    # the killed run's lock does not block the next run (the kernel released it)
    assert fm.simulate(falling_mass(), 0.1, output=str(path)).success
