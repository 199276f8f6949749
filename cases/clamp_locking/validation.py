"""Validation rows of the clamp locking mechanism (``flexmbs validate``): seed 003 ch. 3, Tables 3-1..3-4.

Table 3-1 (L5486-5519): free-free frequencies of the vertical connecting bar, full FE and Craig-Bampton. The bar's
shank section (``bar_width``, ``bar_height``) was *fitted* to its first two FE frequencies, so those rows are
``calibrated``; the higher modes are paired by rank only (our shank is prismatic, the seed's has a machined profile),
so they are ``not comparable``. Our reduction against our full FE model is a verification row (kind ``full FE``).

Tables 3-3 (L5926-5940) and 3-4 (L5981-6002, wave2-spec §E): every point of both studies, both columns, from runs of
this code in this call (nine strokes, slow); with ``--quick`` the rows are listed as ``not run (quick)``. Every row
is a prediction: the crank geometry (lug radii, cylinder lug, bar planes) and the piston-joint geometry are not in
the seed, and fitting the lug radii to the nominal column (stiffness 1, 90 ms: 155 / 50 kN, locking < 1 s) is not
possible with this model (``studies/crank-sweep.toml``, docs/cases/clamp-locking.md "Calibration against the nominal
column"), so no geometry parameter is calibrated and the nominal rows are compared like the others. The cushion
areas were set to bring out the Table 3-3 deceleration trend, so that trend is ``calibrated``.

:func:`mechanism_rows` compares what the seed's printed inputs imply (mean cylinder lever arm from stroke and
rotation, the regenerative push from the rated forces, the force ratio bar / cylinder, the torque-balance bound of
piston 4) and the seed's qualitative statements of §3.3 (L5817-5836).
"""
from __future__ import annotations

import numpy as np

from flexmbs.catalog.validation import row, skipped_rows, trend_row

from .seed_tables import BARS, STIFFNESS, TABLE_3_3, TABLE_3_4  # the seed's numbers, one copy

ORIGIN_31 = "seed 003 Table 3-1 (L5486-5519)"
ORIGIN_32 = "seed 003 Table 3-2 (L5550-5575)"
ORIGIN_33 = "seed 003 Table 3-3 (L5926-5940)"
ORIGIN_34 = "seed 003 Table 3-4 (L5981-6002)"
# seed 003 Table 3-1: (FE Hz, Craig-Bampton Hz, comment); rigid-body modes omitted
TABLE_3_1 = ((44.2, 44.2, "1st bending z"), (65.4, 65.4, "1st bending x"), (138.1, 138.0, "2nd bending z"),
             (158.1, 154.3, "1st torsion"), (197.3, 197.2, "2nd bending x"), (288.6, 288.4, "3rd bending z"),
             (392.0, 391.7, "3rd bending x"), (500.6, 500.3, "4th bending z"), (528.5, 512.1, "local"),
             (652.4, 652.9, "4th bending x"), (771.6, 771.4, "5th bending z"), (896.1, 923.5, "1st longitudinal"),
             (990.6, 991.1, "5th bending x"), (996.7, 966.4, "local"), (1085.0, 1085.0, "6th bending z"))
TABLE_3_1_EXTRA_CB = (2074.0, 2141.0, 2685.0, 3074.0)  # "no physical classification"
# seed 003 Table 3-2 (constrained bar): (FE Hz, flexible MBS Hz, measured Hz or None, comment)
TABLE_3_2 = ((26.8, 26.7, 25.6, "1st bending z"), (39.5, 39.4, 39.4, "1st bending x"),
             (106.4, 103.6, None, "1st long. rotation"), (106.5, 106.5, 100.5, "2nd bending z"),
             (151.1, 151.2, 149.1, "2nd bending x"), (244.7, 244.7, None, "3rd bending z"),
             (331.4, 331.4, 321.8, "3rd bending x"), (447.5, 447.5, None, "4th bending z"),
             (589.5, 591.8, 562.3, "4th bending x"))
VALVE_TIMES = (0.05, 0.07, 0.09, 0.11, 0.13)
SEED_NOMINAL_LOCKING_TIME = 0.9  # s, Table 3-4 "≈ 0.9 s"
GEOMETRY = ("prediction: our crank radii, lug positions, cylinder layout and piston-joint geometry (pin radius, "
            "bending arm) are assumed (the seed gives none; no lug radii reach the nominal column, see "
            "studies/crank-sweep.toml): forces come out at about half the seed's")
ORIGIN_31_TEXT = "seed 003 §3.1 (L284, L5281-5286)"
ORIGIN_33_TEXT = "seed 003 §3.3 (L5817-5836)"
INCONSISTENT = ("; the seed prints 13 kN (Table 3-3) and 43 kN (Table 3-4) for this same nominal point "
                "(wave2-spec §F, unresolved)")
SECTION_FIT = "calibrated: bar_width x bar_height (91 x 61 mm) fitted to Table 3-1 modes 1-2"
CUSHION_FIT = ("calibrated: cushion_entry_area_b / cushion_area_end set to bring out the Table 3-3 deceleration "
               "trend")


def bar_frequency_rows(quick: bool = True) -> list:
    """Table 3-1 (both columns) and Table 3-2 against our reduced bar and our full FE model."""
    from . import parameters
    from .flexbars import reduced_bar

    p = parameters({"flexible": True})
    body = reduced_bar(p)
    reduced = np.asarray(body.report["reduced_hz"], dtype=float)
    full = np.asarray(body.report["full_free_free_hz"], dtype=float)
    rows = []
    rank = "paired by rank only: mode characters of our prismatic shank and the seed's machined bar differ"
    for i, (fe, cb, comment) in enumerate(TABLE_3_1):
        for column, ref, ours in (("full FE", fe, full), ("Craig-Bampton", cb, reduced)):
            value = float(ours[i]) if i < ours.size else None
            unpaired = rank if value is not None else f"our reduction report lists {ours.size} modes"
            rows.append(row(f"free-free mode {i + 1} ({comment}), {column}", ref, value, kind="seed",
                            origin=ORIGIN_31, unit="Hz", calibrated=SECTION_FIT if i < 2 else None,
                            not_comparable=None if i < 2 else unpaired))  # modes 1-2: the section was fitted
    for j, ref in enumerate(TABLE_3_1_EXTRA_CB):
        rows.append(row(f"Craig-Bampton mode {len(TABLE_3_1) + j + 1} (no physical classification)", ref, None,
                        kind="seed", origin=ORIGIN_31, unit="Hz",
                        not_comparable="a mode of the seed's basis without physical meaning"))
    for i in range(min(7, reduced.size, full.size)):
        rows.append(row(f"our reduced vs our full FE, free-free mode {i + 1}", float(full[i]), float(reduced[i]),
                        kind="full FE", origin="full FE modal analysis of the same bar mesh", unit="Hz",
                        tolerance=0.01, note="13 fixed-interface modes; 1 % is the project's reduction acceptance"))
    seed_cb_error = [(cb - fe) / fe for fe, cb, _ in TABLE_3_1]
    rows.append(trend_row("seed's own reduction error (CB vs FE), Table 3-1", "torsion -2.4 %, local -3.1 %/-3.0 %, "
                          "longitudinal +3.1 %", f"largest |error| {100 * max(map(abs, seed_cb_error)):.1f} %",
                          True, origin=ORIGIN_31, note="reduced torsion and local modes are softer than full FE"))
    for fe, mbs, measured, comment in TABLE_3_2:
        for column, ref in (("FE", fe), ("flexible MBS", mbs), ("measured", measured)):
            if ref is None:
                continue
            rows.append(row(f"constrained bar, {comment}, {column}", ref, None, kind="seed", origin=ORIGIN_32,
                            unit="Hz", not_comparable="not computed: needs the bar held in its spherical bearings "
                                                      "(installed bar); our model gives free-free modes only"))
    return rows


_RUNS: dict = {}  # outputs of the strokes run in this process (the nominal point serves both studies)


def _study_run(base: dict, **changes) -> dict:
    from . import run

    params = {**base, **changes}
    key = tuple(sorted((k, str(v)) for k, v in params.items()))
    if key not in _RUNS:
        _RUNS[key] = run(params)["outputs"]
    return _RUNS[key]


def _table_3_3_cells():
    """``(quantity, seed kN, stiffness label, bar, phase)`` of every cell of Table 3-3."""
    return [(f"{bar} {phase[:3]}., stiffness {label}", TABLE_3_3[label][bar][k], label, bar, phase)
            for _, label in STIFFNESS for bar in BARS for k, phase in enumerate(("acceleration", "deceleration"))]


def _table_3_4_entries():
    out = []
    for t in VALVE_TIMES:
        forces, dlock = TABLE_3_4[t]
        out += [(f"{bar} acc. peak, valve {t * 1e3:.0f} ms", forces[bar][0], "kN") for bar in BARS]
        out += [(f"{bar} change vs 90 ms, valve {t * 1e3:.0f} ms", float(forces[bar][1]), "%") for bar in BARS]
        out.append((f"locking time change vs 90 ms, valve {t * 1e3:.0f} ms", dlock, "s"))
    return out


def table_3_3_rows(quick: bool = False) -> list:
    """Table 3-3: peak bar forces (acceleration, deceleration) at five bar stiffnesses, cylinder extension."""
    if quick:
        return skipped_rows([(quantity, ref, "kN") for quantity, ref, *_ in _table_3_3_cells()], origin=ORIGIN_33,
                            reason="not run (quick): flexible strokes; run `flexmbs validate --case clamp-locking`")
    from . import parameters

    base = parameters({"flexible": True, "stroke_direction": "lock"})
    outs = {label: _study_run(base, stiffness_scale=factor) for factor, label in STIFFNESS}
    nominal_nonop = ("1", "vertical_nonop", "acceleration")
    rows = [row(quantity, ref, outs[label]["bar_force_phases_kN"][bar][phase], kind="seed", origin=ORIGIN_33, unit="kN",
                tolerance=0.25, note=GEOMETRY + (INCONSISTENT if (label, bar, phase) == nominal_nonop else ""))
            for quantity, ref, label, bar, phase in _table_3_3_cells()]
    for bar in BARS:
        acc = [outs[label]["bar_force_phases_kN"][bar]["acceleration"] for _, label in STIFFNESS]
        dec = [outs[label]["bar_force_phases_kN"][bar]["deceleration"] for _, label in STIFFNESS]
        seed_acc = [TABLE_3_3[label][bar][0] for _, label in STIFFNESS]
        rows.append(trend_row(f"{bar} acceleration peak falls with stiffness (1/5 -> 5)",
                              " >= ".join(f"{v}" for v in seed_acc), " , ".join(f"{v:.1f}" for v in acc),
                              bool(np.all(np.diff(acc) <= 0.0)), origin=ORIGIN_33))
        rows.append(trend_row(f"{bar} deceleration peak rises with stiffness (1/5 -> 5)",
                              " <= ".join(f"{TABLE_3_3[label][bar][1]}" for _, label in STIFFNESS),
                              " , ".join(f"{v:.1f}" for v in dec), bool(np.all(np.diff(dec) >= 0.0)),
                              origin=ORIGIN_33, calibrated=CUSHION_FIT))
    change = 100.0 * (outs["1/2"]["peak_cylinder_force_kN"] / outs["1"]["peak_cylinder_force_kN"] - 1.0)
    rows.append(row("peak cylinder force change, stiffness 1/2 vs 1", -3.0, change, kind="seed",
                    origin="seed 003 L5899-5903", unit="%", relative=False, tolerance=3.0,
                    note="seed: a softer bar lowers the hydraulic force by approximately 3 % (the cylinder starts "
                         "moving earlier); percentage points"))
    return rows


def table_3_4_rows(quick: bool = False) -> list:
    """Table 3-4: acceleration peaks and locking-time change at five valve opening times, cylinder extension."""
    if quick:
        return skipped_rows(_table_3_4_entries(), origin=ORIGIN_34,
                            reason="not run (quick): flexible strokes; run `flexmbs validate --case clamp-locking`")
    from . import parameters

    base = parameters({"flexible": True, "stroke_direction": "lock"})
    outs = {t: _study_run(base, valve_response_time=t) for t in VALVE_TIMES}
    ref = outs[0.09]
    acc = {t: {bar: outs[t]["bar_force_phases_kN"][bar]["acceleration"] for bar in BARS} for t in VALVE_TIMES}
    rows = []
    for t in VALVE_TIMES:
        forces, dlock = TABLE_3_4[t]
        rows += [row(f"{bar} acc. peak, valve {t * 1e3:.0f} ms", forces[bar][0], acc[t][bar], kind="seed",
                     origin=ORIGIN_34, unit="kN", tolerance=0.25,
                     note=GEOMETRY + (INCONSISTENT if (bar, t) == ("vertical_nonop", 0.09) else "")) for bar in BARS]
        rows += [row(f"{bar} change vs 90 ms, valve {t * 1e3:.0f} ms", float(forces[bar][1]),
                     100.0 * (acc[t][bar] / acc[0.09][bar] - 1.0), kind="seed", origin=ORIGIN_34, unit="%",
                     relative=False, tolerance=10.0,
                     note="percentage points; the change is the geometry-independent content") for bar in BARS]
        unfinished = None if None not in (outs[t]["locking_time_s"], ref["locking_time_s"]) else \
            "the stroke did not reach its end within t_end"
        if t == 0.09:
            rows.append(row("locking time, valve 90 ms", SEED_NOMINAL_LOCKING_TIME, ref["locking_time_s"],
                            kind="seed", origin=ORIGIN_34, unit="s", tolerance=0.15, not_comparable=unfinished,
                            note="seed prints '≈ 0.9 s'; 15 % covers its rounding and our invented stroke geometry"))
        else:
            change = None if unfinished else outs[t]["locking_time_s"] - ref["locking_time_s"]
            rows.append(row(f"locking time change vs 90 ms, valve {t * 1e3:.0f} ms", dlock, change, kind="seed",
                            origin=ORIGIN_34, unit="s", relative=False, tolerance=0.015, not_comparable=unfinished,
                            note="15 ms: the seed's changes are 12-25 ms over the whole range"))
    for bar in ("horizontal", "vertical_op"):  # the non-op. column of the seed is not monotonic (56 47 43 45 44)
        peaks = [acc[t][bar] for t in VALVE_TIMES]
        rows.append(trend_row(f"{bar} acc. peak falls with the opening time (50 -> 130 ms)",
                              " > ".join(f"{TABLE_3_4[t][0][bar][0]}" for t in VALVE_TIMES),
                              " , ".join(f"{v:.1f}" for v in peaks), bool(np.all(np.diff(peaks) < 0.0)),
                              origin=ORIGIN_34))
    if all(outs[t]["locking_time_s"] is not None for t in VALVE_TIMES):
        times = [outs[t]["locking_time_s"] for t in VALVE_TIMES]
        rows.append(trend_row("locking time rises with the opening time (50 -> 130 ms)", "-22 < -12 < 0 < +12 < +25 ms",
                              " , ".join(f"{1e3 * (v - ref['locking_time_s']):+.0f}" for v in times) + " ms",
                              bool(np.all(np.diff(times) > 0.0)), origin=ORIGIN_34))
    return rows


def _statement_rows(out: dict) -> list:
    """Seed 003 §3.3 (L5817-5836): the qualitative findings of the nominal locking stroke."""
    acc = {bar: out["bar_force_phases_kN"][bar]["acceleration"] for bar in BARS}
    dec = {bar: out["bar_force_phases_kN"][bar]["deceleration"] for bar in BARS}
    return [trend_row("horizontal bar carries the largest force (it drives pistons 1 and 2)",
                      "155 > 50, 43 kN", " , ".join(f"{acc[b]:.1f}" for b in BARS) + " kN",
                      acc["horizontal"] > max(acc["vertical_op"], acc["vertical_nonop"]), origin=ORIGIN_33_TEXT),
            trend_row("horizontal bar: peak at valve opening above the cushioning peak", "155 > 41 kN",
                      f"{acc['horizontal']:.1f} > {dec['horizontal']:.1f} kN",
                      acc["horizontal"] > dec["horizontal"], origin=ORIGIN_33_TEXT,
                      note="seed: the opening peak has to accelerate the pistons and overcome friction")]


def mechanism_rows(quick: bool = False) -> list:
    """What the seed's printed inputs imply for the mechanism, and the nominal stroke against it (slow part)."""
    import math

    from . import parameters
    from .geometry import cylinder_areas, mean_cylinder_lever_arm, start_lever_arms

    p = parameters({"flexible": True, "stroke_direction": "lock"})
    rho = math.radians(45.0)  # seed 003 L284: the pistons are rotated by 45 degrees
    rows = [row("mean lever arm of the cylinder on piston 4 (virtual work: stroke / rotation)",
                1e3 * 0.390 / rho, 1e3 * mean_cylinder_lever_arm(p), kind="analytic",
                origin="seed 003 L5283 (390 mm), L284 (45°)", unit="mm", tolerance=1e-6,
                note="our layout, integrated over the rotation")]
    areas = cylinder_areas(p["push_force"], p["pull_force"], p["rated_pressure"])  # from the rated forces
    push = p["supply_pressure"] * (areas["piston_area"] - areas["rod_side_area"])  # N, both chambers on supply
    entries = [("peak cylinder force = regenerative push p_s (A_A - A_B)", push / 1e3, "kN"),
               ("horizontal acc. peak / regenerative push, 90 ms", 155e3 / push, "1"),
               ("seed's horizontal peak within the torque-balance bound of piston 4", "155 kN <= F_c a_c / a_h4", ""),
               ("horizontal bar carries the largest force", "155 > 50, 43 kN", ""),
               ("horizontal bar: peak at valve opening above the cushioning peak", "155 > 41 kN", "")]
    if quick:
        return rows + skipped_rows(entries, origin=ORIGIN_31_TEXT,
                                   reason="not run (quick): the nominal flexible stroke; run `flexmbs validate "
                                          "--case clamp-locking`")
    out = _study_run(p)
    force = out["peak_cylinder_force_kN"]
    rows.append(row(entries[0][0], push / 1e3, force, kind="analytic", origin="seed 003 L5285, L5644, L5712-5716",
                    unit="kN", tolerance=0.05, note="185 bar on both chambers (regenerative spool); above it only "
                    "the fluid inertia at valve opening"))
    ratio = out["bar_force_phases_kN"]["horizontal"]["acceleration"] * 1e3 / push
    rows.append(row(entries[1][0], 155e3 / push, ratio, kind="seed", origin=ORIGIN_34 + ", L5285", unit="1",
                    tolerance=0.25, note="the force ratio of the mechanism at valve opening; ours is set by the "
                    "assumed lug radii and the static break-away of the piston joints"))
    arms = start_lever_arms(p)
    bound = force * arms["cylinder@piston4"] / arms["bar_h@piston4"]
    rows.append(trend_row(entries[2][0], "155 kN", f"bound {bound:.0f} kN = {force:.1f} kN x "
                          f"{1e3 * arms['cylinder@piston4']:.0f} mm / {1e3 * arms['bar_h@piston4']:.0f} mm",
                          bound >= 155.0, origin=ORIGIN_34,
                          note="torque balance of piston 4 at the start, friction and the non-op. bar left out "
                               "(they only lower the bound): with our lug radii the seed's nominal peak is out of "
                               "reach whatever the friction or hydraulics"))
    return rows + _statement_rows(out)


CHECKS = [("Tables 3-1, 3-2 (connecting bar)", bar_frequency_rows, True),
          ("§3.1, §3.3 (mechanism facts and statements)", mechanism_rows, False),
          ("Table 3-3 (bar stiffness study)", table_3_3_rows, False),
          ("Table 3-4 (valve opening time study)", table_3_4_rows, False)]
