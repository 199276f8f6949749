"""One clamp locking stroke: build (mechanism + reduced bars + circuit), simulate, summarize, draw."""
from __future__ import annotations

import os
import sys
import time

from cases._common import run_summary, simulate_run

from .declaration import NAME
from .analysis import summary
from .circuit import build_circuit
from .mechanism import build_mechanism


def build_model(params: dict, progress: bool = False):
    """The full model (mechanism, bars, circuit); returns ``(model, handles)``; ``handles["bars"]`` are the
    FlexBodies (or None for rigid bars)."""
    bars = None
    if params["flexible"]:
        from .flexbars import reduced_bar

        body = reduced_bar(params, progress)
        bars = {"bar_h": body, "bar_vop": body, "bar_vnop": body}
    model, handles = build_mechanism(params, bars)
    circuit = build_circuit(params, handles["cylinder_length"], handles["retracted_length"])
    model.add_element(circuit)
    handles["bars"] = bars
    handles["circuit"] = circuit
    return model, handles


def simulate_stroke(params: dict, t_end: float | None = None, out: str | None = None, progress: bool = False):
    """Simulate one stroke; returns ``(results, model, handles)``; raises SimulationError if it fails."""
    t_end = float(t_end if t_end is not None else params["t_end"])
    model, handles = build_model(params, progress)
    if progress:
        print(f"{NAME}: simulating {t_end} s ({params['stroke_direction']}, "
              f"{'flexible' if params['flexible'] else 'rigid'} bars)", file=sys.stderr)
    res = simulate_run(NAME, model, t_end, params, out, progress, rtol=params["rtol"], max_step=2e-3,
                       output_interval=params["output_interval"])
    return res, model, handles


def run_stroke(params: dict, t_end: float | None = None, out: str | None = None, progress: bool = False) -> dict:
    """Run one stroke; returns the JSON-able summary (common keys plus ``outputs``); figures beside ``out``."""
    wall0 = time.perf_counter()
    res, model, handles = simulate_stroke(params, t_end, out, progress)
    outputs = summary(res, model, params)
    if handles["bars"] is not None:
        from .flexbars import frequency_check

        check = frequency_check(handles["bars"]["bar_h"])
        outputs["bar_frequencies_hz"] = {"reduced": check["reduced_hz"].tolist(), "full_fe": check["full_hz"].tolist(),
                                         "max_relative_error": float(check["relative_error"].max())}
    if out:
        from .figures import stroke_figures

        stem = out[:-len(".results.h5")] if out.endswith(".results.h5") else os.path.splitext(out)[0]
        outputs["figures"] = stroke_figures(res, model, params, stem)
    return run_summary(NAME, res, outputs, time.perf_counter() - wall0, engine=str(res.statistics.get("engine", "")))
