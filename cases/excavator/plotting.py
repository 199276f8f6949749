"""Files of the excavator's outputs: CSV columns and matplotlib figures (shared by outputs and flexboom)."""
from __future__ import annotations

import numpy as np

from cases._common import pyplot


def write_csv(path: str, columns: dict) -> str:
    """``columns`` (header -> values of equal length) as a CSV file (``%.9g``, CRLF line ends)."""
    np.savetxt(path, np.column_stack(list(columns.values())), fmt="%.9g", delimiter=",", newline="\r\n",
               header=",".join(columns), comments="")
    return path


def new_figure(n_rows: int = 1, height: float = 3.2):
    fig, axes = pyplot().subplots(n_rows, 1, figsize=(7.5, height * n_rows), sharex=True, squeeze=False)
    return fig, axes[:, 0]
