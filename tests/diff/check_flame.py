# SPDX-License-Identifier: BSD-3-Clause
"""check_flame.py SVG [SCALE_PCT]: a differential flame graph's colours follow
its scale: each frame's fill is the one its change (NEW - OLD) / max(OLD, NEW)
gets on a scale whose deepest colour is the largest change of a frame on both
sides (or SCALE_PCT% of OLD when given), and the legend names that scale."""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[1]).getroot()
frames = []
for g in svg.iter(NS + "g"):
    title, rect = g.find(NS + "title"), g.find(NS + "rect")
    if title is None or rect is None:
        continue
    m = re.search(r"\((\d+) events, was (\d+), ", title.text or "")
    if not m:
        continue
    new, old = int(m.group(1)), int(m.group(2))
    rgb = tuple(int(v) for v in re.match(r"rgb\((\d+),(\d+),(\d+)\)", rect.get("fill")).groups())
    frames.append((title.text, new, old, rgb))
assert frames, "no frames"


def change(new, old):
    base = max(new, old)
    return (new - old) / base if base else 0.0


if len(sys.argv) > 2:
    pct = float(sys.argv[2])
    scale = pct / (100 + pct)
else:
    scale = max((abs(change(n, o)) for _, n, o, _ in frames if n and o), default=0) or 1.0
for text, new, old, rgb in frames:
    k = max(-1.0, min(1.0, change(new, old) / scale))
    if k >= 0:
        want = (255, int(255 - 200 * k), int(255 - 200 * k))
    else:
        want = (int(255 + 200 * k), int(255 + 200 * k), 255)
    assert all(abs(a - b) <= 1 for a, b in zip(rgb, want)), f"{text}: {rgb}, expected {want}"
legend = [t.text for t in svg.iter(NS + "text") if t.text and "or more" in t.text]
assert legend, "no legend"
want_pct = 100 * scale / (1 - scale)
m = re.match(r"([+-][\d.]+)% or more", legend[0])
assert m and abs(float(m.group(1)) - want_pct) <= 0.05 + want_pct * 1e-3, \
    f"legend {legend[0]!r}, expected +{want_pct:.1f}%"
print(f"ok: {len(frames)} frames coloured on a scale of +{want_pct:.1f}%")
