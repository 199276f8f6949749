"""``flexmbs report`` opened in a real browser (headless Chromium over the DevTools protocol, network off): no
console error, no request leaves the file, the plots and the 3D view are drawn, and dragging the time slider moves
the machine (compared screenshots). Screenshots are kept in $FLEXMBS_TEST_ARTIFACTS (default: the test's tmp
folder) and their paths printed.
"""
from __future__ import annotations

import json
import os
import pathlib

import numpy as np
import pandas as pd
import pytest

from browser import Browser
from helpers_viz import run_cli

READY = "document.body && document.body.dataset.flexmbsReady === '1'"


def _external_references(text: str) -> list[str]:
    """``src``/``href`` attributes of the page's tags (script bodies are raw text to the parser, so the strings
    inside plotly.js do not count)."""
    from html.parser import HTMLParser

    found = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.extend(f"<{tag} {k}={v}>" for k, v in attrs if k in ("src", "href") and v and
                         not v.startswith(("#", "data:")))

    Tags().feed(text)
    return found


def _artifacts(tmp_path) -> pathlib.Path:
    folder = pathlib.Path(os.environ.get("FLEXMBS_TEST_ARTIFACTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _changed(before: np.ndarray, after: np.ndarray) -> float:
    """Share of the 3D scene's pixels (above the slider, left of the colour bar) that changed by more than a faint
    shading difference."""
    h, w = before.shape[:2]
    scene = (slice(int(0.08 * h), int(0.8 * h)), slice(0, int(0.85 * w)))
    difference = np.abs(before[scene].astype(int) - after[scene].astype(int)).max(axis=2)
    return float(np.mean(difference > 40))


def _ink(image: np.ndarray) -> int:
    """Pixels of the 3D scene darker than the light axes walls and ground (the bodies)."""
    h, w = image.shape[:2]
    return int(np.sum(image[int(0.08 * h):int(0.8 * h), :int(0.85 * w)].astype(int).sum(axis=2) < 3 * 150))


def _machine_geometry(browser: Browser) -> dict:
    browser.evaluate("document.getElementById('machine').scrollIntoView(); true")
    browser.settle(0.5)
    return browser.evaluate("""(() => {
      const box = document.getElementById('machine').getBoundingClientRect();
      const grip = document.querySelector('#machine .slider-grip-rect').getBoundingClientRect();
      const rail = document.querySelector('#machine .slider-rail-rect').getBoundingClientRect();
      return {clip: {x: box.x + window.scrollX, y: box.y + window.scrollY, width: box.width, height: box.height},
              grip: [grip.x + grip.width / 2, grip.y + grip.height / 2],
              rail: [rail.x, rail.y + rail.height / 2, rail.width]};
    })()""")


def _time_shown(browser: Browser) -> str:
    return browser.evaluate("Array.from(document.querySelectorAll('#machine .slider-container text'))"
                            ".map(t => t.textContent).find(t => t.startsWith('t = '))")


def check_run_page(page: pathlib.Path, folder: pathlib.Path, tag: str, n_plots: int) -> dict:
    """Open a run page, check it, drag the slider; returns what was seen (screenshot paths, times, moved pixels)."""
    browser = Browser()
    try:
        browser.open(page.resolve().as_uri(), READY)
        browser.settle(2.0)
        seen = browser.evaluate("""(() => ({
          plots: document.querySelectorAll('.js-plotly-plot').length,
          drawn: Array.from(document.querySelectorAll('.js-plotly-plot')).filter(p => p.querySelector('.main-svg')).length,
          curves: document.querySelectorAll('.js-plotly-plot .scatterlayer .trace path.js-line').length,
          webgl: Array.from(document.querySelectorAll('#machine canvas')).filter(c => c.width > 0).length,
          collected: window.flexmbsConsoleErrors }))()""")
        assert seen["plots"] == n_plots + 1 and seen["drawn"] == n_plots + 1  # the signals + the machine
        assert seen["curves"] >= n_plots and seen["webgl"] >= 1
        whole = folder / f"{tag}-page.png"
        browser.screenshot(str(whole))
        geometry = _machine_geometry(browser)
        before_time = _time_shown(browser)
        before = browser.screenshot(str(folder / f"{tag}-machine-start.png"), geometry["clip"])
        rail = geometry["rail"]
        browser.drag(tuple(geometry["grip"]), (rail[0] + 0.55 * rail[2], rail[1]))
        browser.settle(2.0)
        after_time = _time_shown(browser)
        after = browser.screenshot(str(folder / f"{tag}-machine-moved.png"), geometry["clip"])
        errors = browser.console_errors() + list(browser.evaluate("window.flexmbsConsoleErrors"))
        outside = [u for u in browser.requests() if not u.startswith(("file:", "data:", "blob:"))]
    finally:
        browser.close()
    moved = _changed(before, after)
    print(f"{tag}: screenshots {whole}, {folder / f'{tag}-machine-start.png'}, "
          f"{folder / f'{tag}-machine-moved.png'}; {before_time} -> {after_time}; {moved:.4f} of the view changed")
    assert errors == [], errors
    assert outside == [], outside
    assert before_time == "t = 0.000 s" and after_time != before_time
    assert _ink(before) > 200 and _ink(after) > 200  # the machine is drawn before and after
    return {"moved": moved, "before": before_time, "after": after_time}


def test_run_report_renders_offline_without_errors_and_the_slider_moves_the_machine(swing_file, tmp_path):
    path, _ = swing_file
    page = tmp_path / "swing.html"
    result = run_cli("report", path, "-o", page, "--json")
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert _external_references(page.read_text()) == []  # everything inlined
    seen = check_run_page(page, _artifacts(tmp_path), "swing", info["plots"])
    # the bar swings from +x to about -x at 55 % of the run: its coloured pixels move by a large share of the view
    assert seen["moved"] > 0.005
    assert float(seen["after"].split()[2]) == pytest.approx(0.55, abs=0.06)


def test_study_report_shows_the_table_and_one_plot_per_output_with_units(tmp_path):
    """A study folder of the clamp unit (table written here: the page is under test, not the study): the table
    with every variant, and for each output one plot per varied parameter with the declared units on its axes."""
    folder = tmp_path / "study-valve"
    folder.mkdir()
    (folder / "study.json").write_text(json.dumps({
        "format": "flexmbs-study", "format_version": 1, "case": "clamp-locking", "design": "grid",
        "varied": ["valve_response_time", "friction_dynamic"], "fixed": {}, "t_end": None}))
    frame = pd.DataFrame({"variant": [f"v{k:02d}" for k in range(6)],
                          "valve_response_time": np.repeat([0.05, 0.09, 0.13], 2),
                          "friction_dynamic": np.tile([0.3, 0.42], 3), "status": "finished", "error": "",
                          "wall_s": 1.0, "steps": 100})
    frame["locking_time_s"] = 0.8 + frame["valve_response_time"]
    frame["peak_bar_force_kN.horizontal"] = 70.0 + 10.0 * frame["friction_dynamic"]
    frame.to_parquet(folder / "table.parquet")
    page = tmp_path / "study.html"
    result = run_cli("report", folder, "-o", page, "--json")
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["plots"] == 2 * 2 and info["rows"] == 6
    browser = Browser()
    try:
        browser.open(page.resolve().as_uri(), READY)
        browser.settle(1.0)
        seen = browser.evaluate("""(() => ({
          rows: document.querySelectorAll('table tbody tr').length,
          header: Array.from(document.querySelectorAll('table thead th')).map(t => t.textContent),
          x: Array.from(document.querySelectorAll('.js-plotly-plot .xtitle')).map(t => t.textContent),
          y: Array.from(document.querySelectorAll('.js-plotly-plot .ytitle')).map(t => t.textContent) }))()""")
        shot = _artifacts(tmp_path) / "study-page.png"
        browser.screenshot(str(shot))
        errors = browser.console_errors()
    finally:
        browser.close()
    print(f"study page screenshot: {shot}")
    assert errors == []
    assert seen["rows"] == 6
    assert "valve_response_time [s]" in seen["header"] and "locking_time_s [s]" in seen["header"]
    assert sorted(seen["x"]) == sorted(["valve_response_time [s]", "friction_dynamic [-]"] * 2)
    assert sorted(seen["y"]) == sorted(["locking_time_s [s]"] * 2 + ["peak_bar_force_kN.horizontal [kN]"] * 2)


def test_report_of_a_folder_that_is_not_a_study_is_one_line(tmp_path):
    result = run_cli("report", tmp_path, "-o", tmp_path / "page.html")
    assert result.exit_code == 2
    assert "not a study folder" in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize("case, t_end", [("excavator", None), ("clamp-locking", None)])
def test_case_report_opens_in_chromium(case, t_end, tmp_path):
    """The excavator's and the clamp unit's pages: no console error offline, plots and machine drawn, the slider
    moves the machine. Their sizes are printed (docs/report.md keeps them)."""
    results = tmp_path / f"{case}.results.h5"
    args = ["run", case, "-o", results] + (["--t-end", t_end] if t_end else [])
    assert run_cli(*args).exit_code == 0
    page = tmp_path / f"{case}.html"
    result = run_cli("report", results, "-o", page, "--json")
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    print(f"{case}: {info['bytes'] / 1e6:.1f} MB")
    seen = check_run_page(page, _artifacts(tmp_path), case, info["plots"])
    assert seen["moved"] > 0.001


def test_the_3d_view_is_framed_on_the_whole_motion(swing_file):
    """Fixed axis ranges of the page's 3D view hold every node of every output time (not only the drawn frames),
    and each frame carries the bar where the results put it."""
    from flexmbs.post.report import machine_figure
    from flexmbs.post.viz.scene import load_scene

    path, _ = swing_file
    scene = load_scene(path)
    fig, info = machine_figure(scene, max_frames=9)
    assert info["frames"] == 9 and len(fig.frames) == 9
    points = np.vstack([scene.points("bar", k) for k in range(scene.time.size)])
    for c, name in enumerate("xyz"):
        lo, hi = getattr(fig.layout.scene, f"{name}axis").range
        assert lo < points[:, c].min() and points[:, c].max() < hi
        assert fig.layout.scene[f"{name}axis"].autorange is False
    last = scene.points("bar", scene.time.size - 1)
    drawn = np.column_stack([fig.frames[-1].data[0][c] for c in "xyz"])
    kept = np.unique(scene.body("bar").triangles)
    np.testing.assert_allclose(drawn, last[kept], rtol=0.0, atol=1e-6)  # float32 on the page
