"""Parameter studies of seed 003 §3.3 as Markdown tables laid out like the seed's.

* ``valve``: opening time of the directional valve 50/70/90/110/130 ms → peak bar forces during acceleration and
  change of the locking time (Table 3-4);
* ``stiffness``: bar stiffness (E-modulus) × 1/5, 1/2, 1, 2, 5 → bar forces during acceleration and deceleration
  (Table 3-3);
* ``proportional``: proportional valve with a ramped command vs the directional valve (§3.3.4).

Usage::

    python -m cases.clamp_locking.studies valve|stiffness|proportional|all [--rigid] [--out DIR]
                                          [--set key=value ...]

Each study writes ``<DIR>/clamp-locking-<study>.md`` (default DIR: the current directory) and prints it.
"""
from __future__ import annotations

import argparse
import os
import sys

from . import run

BARS = ("horizontal", "vertical_op", "vertical_nonop")
VALVE_TIMES = (0.05, 0.07, 0.09, 0.11, 0.13)
STIFFNESS = ((0.2, "1/5"), (0.5, "1/2"), (1.0, "1"), (2.0, "2"), (5.0, "5"))


def _run(base: dict, **changes) -> dict:
    params = dict(base)
    params.update(changes)
    print(f"clamp-locking study: {changes}", file=sys.stderr)
    return run(params)["outputs"]


def _percent(value: float, reference: float) -> str:
    change = 100.0 * (value / reference - 1.0)
    return "/" if abs(change) < 0.05 else f"{change:+.0f} %"


def valve_study(base: dict, times=VALVE_TIMES) -> str:
    """Table 3-4: peak acceleration forces and locking time vs valve opening time (reference 90 ms)."""
    rows = {t: _run(base, valve_response_time=t) for t in times}
    ref = rows[0.09] if 0.09 in rows else rows[times[len(times) // 2]]
    lines = ["| opening time of valve | horizontal bar | vertical bar op.-side | vertical bar non op.-side | "
             "(un)locking time |", "|---|---|---|---|---|"]
    for t, out in rows.items():
        cells = []
        for bar in BARS:
            value = out["bar_force_phases_kN"][bar]["acceleration"]
            ref_value = ref["bar_force_phases_kN"][bar]["acceleration"]
            cells.append(f"{value:.1f} kN ({_percent(value, ref_value)})")
        if out is ref:
            lock = f"{out['locking_time_s']:.3f} s"
        else:
            lock = f"{(out['locking_time_s'] - ref['locking_time_s']) * 1e3:+.0f} ms"
        lines.append(f"| {t * 1e3:.0f} ms | " + " | ".join(cells) + f" | {lock} |")
    return "\n".join(lines)


def stiffness_study(base: dict, factors=STIFFNESS) -> str:
    """Table 3-3: bar forces during acceleration and deceleration vs relative bar stiffness (cylinder extension)."""
    lines = ["| relative stiffness | horizontal acc. | horizontal dec. | vertical op. acc. | vertical op. dec. | "
             "vertical non-op. acc. | vertical non-op. dec. | locking time |", "|---|---|---|---|---|---|---|---|"]
    for factor, label in factors:
        out = _run(base, stiffness_scale=factor)
        cells = [f"{out['bar_force_phases_kN'][bar][phase]:.1f} kN" for bar in BARS
                 for phase in ("acceleration", "deceleration")]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {out['locking_time_s']:.3f} s |")
    return "\n".join(lines)


def proportional_study(base: dict) -> str:
    """§3.3.4: directional valve (90 ms) vs proportional valve with a ramped command."""
    rows = [("directional, 90 ms", _run(base, valve_type="directional")),
            (f"proportional, {base['proportional_ramp_time'] * 1e3:.0f} ms ramp, area × "
             f"{base['proportional_boost']:g}", _run(base, valve_type="proportional"))]
    ref = rows[0][1]
    lines = ["| valve | horizontal bar acc. | vertical bar op.-side acc. | vertical bar non op.-side acc. | "
             "locking time | max. cylinder speed |", "|---|---|---|---|---|---|"]
    for label, out in rows:
        cells = []
        for bar in BARS:
            value = out["bar_force_phases_kN"][bar]["acceleration"]
            cells.append(f"{value:.1f} kN ({_percent(value, ref['bar_force_phases_kN'][bar]['acceleration'])})")
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {out['locking_time_s']:.3f} s | "
                     f"{out['max_speed_m_s'] * 1e3:.0f} mm/s |")
    return "\n".join(lines)


STUDIES = {"valve": valve_study, "stiffness": stiffness_study, "proportional": proportional_study}


def main(argv=None) -> int:
    from . import parameters

    parser = argparse.ArgumentParser(prog="python -m cases.clamp_locking.studies", description=__doc__.split("\n")[0])
    parser.add_argument("study", choices=(*STUDIES, "all"))
    parser.add_argument("--rigid", action="store_true", help="rigid connecting bars (fast)")
    parser.add_argument("--out", default=".", help="directory of the Markdown tables")
    parser.add_argument("--set", dest="assignments", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    changes = dict(item.split("=", 1) for item in args.assignments)
    if args.rigid:
        changes["flexible"] = False
    base = parameters(changes)
    os.makedirs(args.out, exist_ok=True)
    names = list(STUDIES) if args.study == "all" else [args.study]
    for name in names:
        if name == "stiffness" and not base["flexible"]:
            print("clamp-locking study: the stiffness study needs flexible bars; skipped", file=sys.stderr)
            continue
        table = STUDIES[name](base)
        bars = "flexible" if base["flexible"] else "rigid"
        text = f"### clamp-locking: {name} study ({bars} bars, {base['stroke_direction']} stroke)\n\n{table}\n"
        path = os.path.join(args.out, f"clamp-locking-{name}.md")
        with open(path, "w") as fh:
            fh.write(text)
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
