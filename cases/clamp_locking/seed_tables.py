"""The clamp-locking studies next to seed 003's tables, row by row (the ``study_report`` hook of ``flexmbs study``).

The studies themselves are plans in ``studies/*.toml`` run by ``flexmbs study clamp-locking --plan NAME``; this
module only lays the finished table out like the seed's, with the seed's numbers beside ours:

* ``valve_response_time`` → Table 3-4 (acceleration peaks and locking-time change vs valve opening time);
* ``stiffness_scale`` → Table 3-3 (acceleration and deceleration peaks vs relative bar stiffness);
* ``valve_type`` → §3.3.4 (directional vs ramped proportional valve).

Our geometry is invented (docs/cases/clamp-locking.md), so the absolute forces are about half the seed's; the
comparison is of the changes relative to the nominal row (90 ms, stiffness 1), which the seed prints as well.
"""
from __future__ import annotations

# seed 003 Tables 3-3 (L5926-5940) and 3-4 (L5981-6002), read by the report below and by the validation rows
BARS = ("horizontal", "vertical_op", "vertical_nonop")
STIFFNESS = ((0.2, "1/5"), (0.5, "1/2"), (1.0, "1"), (2.0, "2"), (5.0, "5"))
# seed 003 Table 3-3, kN: {label: {bar: (acceleration, deceleration)}}
TABLE_3_3 = {"1/5": {"horizontal": (171, 25), "vertical_op": (63, 43), "vertical_nonop": (15, 21)},
             "1/2": {"horizontal": (170, 39), "vertical_op": (57, 48), "vertical_nonop": (14, 29)},
             "1": {"horizontal": (155, 41), "vertical_op": (50, 70), "vertical_nonop": (13, 30)},
             "2": {"horizontal": (147, 55), "vertical_op": (47, 82), "vertical_nonop": (13, 30)},
             "5": {"horizontal": (145, 60), "vertical_op": (46, 82), "vertical_nonop": (12, 30)}}
# seed 003 Table 3-4: {opening time s: ({bar: (kN, % vs 90 ms)}, locking time change s)}
TABLE_3_4 = {0.05: ({"horizontal": (214, 38), "vertical_op": (72, 44), "vertical_nonop": (56, 30)}, -0.022),
             0.07: ({"horizontal": (182, 17), "vertical_op": (59, 18), "vertical_nonop": (47, 9)}, -0.012),
             0.09: ({"horizontal": (155, 0), "vertical_op": (50, 0), "vertical_nonop": (43, 0)}, 0.0),
             0.11: ({"horizontal": (150, -3), "vertical_op": (48, -4), "vertical_nonop": (45, 5)}, 0.012),
             0.13: ({"horizontal": (138, -11), "vertical_op": (44, -12), "vertical_nonop": (44, 2)}, 0.025)}

LABELS = dict(STIFFNESS)  # relative stiffness → the seed's label ("1/5", ...)


def _number(value) -> float:
    """A table cell as a float (None → nan: e.g. no locking time when the run ends before the stroke does)."""
    return float("nan") if value is None else float(value)


def _force(row, bar: str, phase: str) -> float:
    return _number(row[f"bar_force_phases_kN.{bar}.{phase}"])


def _change(value: float, reference: float) -> str:
    change = 100.0 * (value / reference - 1.0)
    return "/" if abs(change) < 0.05 else f"{change:+.0f} %"


def _nominal(rows, key: str, value: float):
    match = rows[rows[key] == value]
    return match.iloc[0] if len(match) else rows.iloc[len(rows) // 2]


def valve_table(rows) -> str:
    """Table 3-4 layout: ours (change vs 90 ms) · seed (change vs 90 ms) for each bar, and the locking time."""
    rows = rows.sort_values("valve_response_time")
    ref = _nominal(rows, "valve_response_time", 0.09)
    lines = ["| opening time of valve | horizontal bar: ours · seed | vertical bar op.-side: ours · seed | "
             "vertical bar non op.-side: ours · seed | (un)locking time: ours · seed |", "|---|---|---|---|---|"]
    for _, row in rows.iterrows():
        t = float(row["valve_response_time"])
        seed = TABLE_3_4.get(round(t, 4))
        cells = []
        for bar in BARS:
            ours, nominal = _force(row, bar, "acceleration"), _force(ref, bar, "acceleration")
            text = f"{ours:.1f} kN ({_change(ours, nominal)})"
            if seed:
                text += f" · {seed[0][bar][0]:.0f} kN ({_change(seed[0][bar][0], TABLE_3_4[0.09][0][bar][0])})"
            cells.append(text)
        dt = _number(row["locking_time_s"]) - _number(ref["locking_time_s"])
        if dt != dt:  # no locking time: the run ended before the stroke did
            lock = "—"
        else:
            lock = (f"{_number(row['locking_time_s']):.3f} s" if row["variant"] == ref["variant"]
                    else f"{dt * 1e3:+.0f} ms")
        if seed:
            lock += " · ≈ 0.9 s" if seed[1] == 0.0 else f" · {seed[1] * 1e3:+.0f} ms"
        lines.append(f"| {t * 1e3:.0f} ms | " + " | ".join(cells) + f" | {lock} |")
    return "\n".join(lines)


def stiffness_table(rows) -> str:
    """Table 3-3 layout: acceleration and deceleration peaks, ours · seed, for each bar."""
    rows = rows.sort_values("stiffness_scale")
    head = " | ".join(f"{bar.replace('_', ' ')} {phase}: ours · seed" for bar in BARS for phase in ("acc.", "dec."))
    lines = [f"| relative stiffness | {head} | locking time |", "|---" * 8 + "|"]
    for _, row in rows.iterrows():
        scale = float(row["stiffness_scale"])
        seed = TABLE_3_3.get(LABELS.get(scale))
        cells = []
        for bar in BARS:
            for j, phase in enumerate(("acceleration", "deceleration")):
                text = f"{_force(row, bar, phase):.1f} kN"
                cells.append(text + (f" · {seed[bar][j]:.0f} kN" if seed else ""))
        lines.append(f"| {LABELS.get(scale, f'{scale:g}')} | " + " | ".join(cells)
                     + f" | {_number(row['locking_time_s']):.3f} s |")
    return "\n".join(lines)


def proportional_table(rows) -> str:
    """§3.3.4: directional vs proportional valve (the seed: peak − over 40 %, locking time kept, up to 1000 mm/s)."""
    ref = _nominal(rows, "valve_type", "directional")
    lines = ["| valve | horizontal bar acc. | vertical bar op.-side acc. | vertical bar non op.-side acc. | "
             "locking time | max. cylinder speed |", "|---|---|---|---|---|---|"]
    for _, row in rows.iterrows():
        cells = [f"{_force(row, bar, 'acceleration'):.1f} kN "
                 f"({_change(_force(row, bar, 'acceleration'), _force(ref, bar, 'acceleration'))})" for bar in BARS]
        lines.append(f"| {row['valve_type']} | " + " | ".join(cells) + f" | {_number(row['locking_time_s']):.3f} s | "
                     f"{_number(row['max_speed_m_s']) * 1e3:.0f} mm/s |")
    lines.append("| seed 003 §3.3.4 | over −40 % | | | unchanged | ≈ 1000 mm/s (extension) |")
    return "\n".join(lines)


TABLES = {"valve_response_time": ("Table 3-4", valve_table), "stiffness_scale": ("Table 3-3", stiffness_table),
          "valve_type": ("§3.3.4", proportional_table)}


def study_report(table, manifest: dict) -> str | None:
    """Markdown: the finished study beside seed 003's table, if exactly one of the seed's parameters was varied."""
    varied = manifest.get("varied", [])
    if len(varied) != 1 or varied[0] not in TABLES:
        return None
    rows = table[table["status"] == "finished"]
    if rows.empty:
        return None
    name, layout = TABLES[varied[0]]
    fixed = ", ".join(f"{k} = {v}" for k, v in manifest.get("fixed", {}).items()) or "defaults"
    failed = len(table) - len(rows)
    note = f"\n\n{failed} variant(s) failed and are left out (see table.csv)." if failed else ""
    return (f"### clamp-locking vs seed 003 {name} ({fixed}; t_end {manifest.get('t_end') or 'default'})\n\n"
            f"Cells: ours · seed (changes relative to the nominal row in brackets).\n\n{layout(rows)}{note}\n")
