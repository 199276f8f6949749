"""A Dask study of the tutorial's crane: payload × lift, from this plain script (docs/tutorial.md, 'A study').

``python study_crane.py [FOLDER]`` runs the six variants on two local Dask workers into ``FOLDER/study`` (default
``.``); run it again and the finished variants are skipped. The table (``study/table.csv``, ``.parquet``) has one row
per variant: payload, lift, status, wall time, the static load pressure and its hand check.
"""
from __future__ import annotations

import os
import sys

import flexmbs as fm

HERE = os.path.dirname(os.path.abspath(__file__))


def lift(payload: float = 100.0, lift: float = 0.05, body_file: str = "boom.flex.h5", out: str | None = None):
    """One lift of the crane; returns its results (the variant's file is ``out``)."""
    sys.path.insert(0, HERE)  # on a Dask worker too: crane.py sits beside this script
    import crane

    p = crane.parameters({"payload": payload, "lift": lift})
    return crane.run(p, body_file, out)


def outputs(results) -> dict:
    """The table's columns of one variant: the load pressure at the end and its hand check (bar)."""
    sys.path.insert(0, HERE)
    import crane

    p = crane.parameters({k: results.attributes["parameters"][k] for k in ("payload", "lift")})
    return {"load_pressure_bar": crane.load_pressure(results, p) / 1e5,
            "hand_load_pressure_bar": crane.hand_checks(p)["load_pressure_pa"] / 1e5}


def main(folder: str = "."):
    sys.path.insert(0, HERE)
    import crane

    body_file = os.path.abspath(crane.boom_body(crane.parameters(), folder))
    result = fm.study(lift, vary={"payload": [50.0, 100.0, 150.0], "lift": [0.03, 0.05]},
                      fixed={"body_file": body_file}, outputs=outputs, workers=2, out=os.path.join(folder, "study"))
    print(result)
    print(result.table[["payload", "lift", "status", "load_pressure_bar", "hand_load_pressure_bar"]]
          .to_string(index=False))
    return result


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
