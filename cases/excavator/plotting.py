"""Files of the excavator's outputs: CSV columns and matplotlib figures (shared by outputs and flexboom)."""
from __future__ import annotations

import csv

from cases._common import pyplot


def write_csv(path: str, columns: dict) -> str:
    names = list(columns)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(names)
        for row in zip(*columns.values()):
            writer.writerow([f"{v:.9g}" for v in row])
    return path


def new_figure(n_rows: int = 1, height: float = 3.2):
    fig, axes = pyplot().subplots(n_rows, 1, figsize=(7.5, height * n_rows), sharex=True, squeeze=False)
    return fig, axes[:, 0]
