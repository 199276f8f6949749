"""Checks of a matplotlib figure's layout: text that overlaps other text, text cut off by the figure's edge, and
legends that cover data.

Every picture flexmbs draws with matplotlib (signal and stress histories, study plots, the frames of an animation
with their colour bar, scale bar and axes triad) is checked by these functions in the tests; they are public so that
a user's own figures can be checked the same way::

    from flexmbs.post.viz.layout import overlapping_texts, legends_over_data
    assert not overlapping_texts(fig) and not legends_over_data(fig)

Boxes are in display coordinates (pixels of the saved figure at the figure's dpi) after a full draw.
"""
from __future__ import annotations

__all__ = ["text_boxes", "overlapping_texts", "texts_outside", "legends_over_data"]


def _visible_text(artist) -> bool:
    return bool(artist.get_visible() and artist.get_text().strip())


def _tick_texts(axis) -> list:
    """Labels of the ticks the axis draws (those inside its view interval)."""
    lo, hi = sorted(axis.get_view_interval())
    eps = 1e-9 * max(abs(lo), abs(hi), 1.0)
    out = []
    for tick in axis.get_major_ticks() + axis.get_minor_ticks():
        loc = tick.get_loc()
        if loc is None or not (lo - eps <= loc <= hi + eps):
            continue
        out += [label for label in (tick.label1, tick.label2) if label.get_visible() and _visible_text(label)]
    return out


def _figure_texts(fig) -> list[tuple[str, object]]:
    """``[(description, Text artist)]`` of every drawn text of the figure."""
    texts = []
    for n, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        where = f"axes {n}"
        for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if not (ax.axison and axis.get_visible()):  # set_axis_off draws neither ticks nor labels
                continue
            texts += [(f"{where} {axis_name} tick {t.get_text()!r}", t) for t in _tick_texts(axis)]
            texts += [(f"{where} {axis_name} label", axis.label), (f"{where} {axis_name} offset", axis.offsetText)]
        for key in ("title", "_left_title", "_right_title"):
            if hasattr(ax, key):
                texts.append((f"{where} title", getattr(ax, key)))
        texts += [(f"{where} text {t.get_text()!r}", t) for t in ax.texts]
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            texts += [(f"{where} legend {t.get_text()!r}", t) for t in legend.get_texts()]
            texts.append((f"{where} legend title", legend.get_title()))
    texts += [(f"figure text {t.get_text()!r}", t) for t in fig.texts]
    for legend in fig.legends:
        texts += [(f"figure legend {t.get_text()!r}", t) for t in legend.get_texts()]
    seen, unique = set(), []
    for name, t in texts:  # fig.texts holds the suptitle too: each artist once
        if id(t) not in seen and _visible_text(t):
            seen.add(id(t))
            unique.append((name, t))
    return unique


def text_boxes(fig) -> list[tuple[str, object]]:
    """``[(description, Bbox in pixels)]`` of every drawn text of ``fig`` (the figure is drawn first)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [(name, t.get_window_extent(renderer)) for name, t in _figure_texts(fig)]


def overlapping_texts(fig, margin: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of texts whose boxes overlap by more than ``margin`` pixels in both directions."""
    boxes = text_boxes(fig)
    pairs = []
    for i, (name_a, a) in enumerate(boxes):
        for name_b, b in boxes[i + 1:]:
            dx = min(a.x1, b.x1) - max(a.x0, b.x0)
            dy = min(a.y1, b.y1) - max(a.y0, b.y0)
            if dx > margin and dy > margin:
                pairs.append((name_a, name_b))
    return pairs


def texts_outside(fig, margin: float = 0.5) -> list[str]:
    """Texts that reach more than ``margin`` pixels beyond the figure's edge (cut off in the saved picture)."""
    width, height = fig.canvas.get_width_height()
    return [name for name, b in text_boxes(fig)
            if b.x0 < -margin or b.y0 < -margin or b.x1 > width + margin or b.y1 > height + margin]


def legends_over_data(fig) -> list[str]:
    """Legends (inside an axes) whose box holds a drawn data point of a line or scatter of that axes."""
    import numpy as np

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    covered = []
    for n, ax in enumerate(fig.axes):
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box, axes_box = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        for line in ax.get_lines():
            xy = np.column_stack([np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)])
            if not xy.size:
                continue
            pixels = ax.transData.transform(xy)
            drawn = ((pixels >= axes_box.p0) & (pixels <= axes_box.p1)).all(axis=1)  # on the axes (edges included)
            inside = ((pixels > box.p0) & (pixels < box.p1)).all(axis=1)  # strictly inside the legend's box
            if np.any(drawn & inside):
                covered.append(f"axes {n} legend covers {line.get_label()!r}")
                break
    return covered
