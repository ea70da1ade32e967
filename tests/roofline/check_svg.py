# SPDX-License-Identifier: BSD-3-Clause
"""check_svg.py SVG JSON TEXT: hpm roofline's picture tells the truth about
its table. Every item of the JSON with a rate is a point inside the frame,
with a key line "N: kind name" numbered as the table, and its number on a
label; no two labels overlap and none covers a point; every level's roof
and every width's peak is named once; the roofs never rise going away from
the core; a measured peak above the machine file's is explained in the
text."""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
XL = "{http://www.w3.org/1999/xlink}"
svg_path, json_path, text_path = sys.argv[1:4]
root = ET.parse(svg_path).getroot()
d = json.load(open(json_path))
text = open(text_path).read()
width = float(root.get("width"))
frame_right = 0.55 * width

items = [i for i in d["items"] if i["gflops"] > 0]
numbers = {i["number"] for i in items}
assert numbers == set(range(1, len(d["items"]) + 1)) or numbers, numbers

# key lines and labels
keys, labels = {}, []
for g in root.iter(NS + "g"):
    t = g.find(NS + "text")
    if t is None:
        continue
    content = "".join(t.itertext()).strip()
    m = re.match(r"^(\d+): (loop|func) ", content)
    if m:
        keys[int(m.group(1))] = content
    tr = re.match(r"translate\(([\d.]+),([\d.]+)\)", g.get("transform") or "")
    if tr and g.get("fill") == "rgb(32,32,128)":
        labels.append((float(tr.group(1)), float(tr.group(2)), content))
assert set(keys) == numbers, f"key lines {sorted(keys)}, items {sorted(numbers)}"
for i in items:
    want = "loop" if i["kind"] == "loop" else "func"
    assert keys[i["number"]].startswith(f"{i['number']}: {want} "), keys[i["number"]]
labelled = set()
for _, _, content in labels:
    labelled |= {int(x) for x in content.split(",")}
assert labelled == numbers, f"labels {sorted(labelled)}, items {sorted(numbers)}"

# the points: markers inside the frame (the key's samples lie right of it)
points = []
for u in root.iter(NS + "use"):
    tr = re.match(r"translate\(([\d.]+),([\d.]+)\)", u.get("transform") or "")
    if tr and float(tr.group(1)) < frame_right:
        points.append((float(tr.group(1)), float(tr.group(2))))
assert len(points) == len(items), f"{len(points)} points drawn, {len(items)} items"

# labels apart: boxes of about 7 pixels a character, 12 high
boxes = [(x, y - 10, x + 7 * len(c), y + 3, c) for x, y, c in labels]
for a in range(len(boxes)):
    for b in range(a + 1, len(boxes)):
        p, q = boxes[a], boxes[b]
        assert not (p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]), \
            f"labels {p[4]!r} and {q[4]!r} overlap"
    for x, y in points:
        p = boxes[a]
        assert not (p[0] < x + 3 and x - 3 < p[2] and p[1] < y + 3 and y - 3 < p[3]), \
            f"label {p[4]!r} covers the point at {x},{y}"

# roofs named once each, and not rising away from the core
titles = [t.text for t in root.iter(NS + "title") if t.text and (" roof (" in t.text or t.text.startswith("peak "))]
bw = d["ceilings"]["bytes_per_s"]
for level in bw:
    named = [t for t in titles if " roof (" in t and level in t.split(" roof (")[0].split(", ")]
    assert len(named) == 1, f"level {level} in {named}"
levels = [l for l in ("L1", "L2", "L3", "DDR") if l in bw]
for near, far in zip(levels, levels[1:]):
    assert bw[far] <= bw[near], f"the {far} roof {bw[far]} above the {near} roof {bw[near]}"
for w in ("scalar", "128-bit", "256-bit"):
    assert sum(1 for t in titles if t.startswith("peak ") and w in t) == 1, (w, titles)

# a measured peak above the file's says why
if "measured" in d:
    for w, key in (("scalar", "scalar"), ("128-bit", "128"), ("256-bit", "256")):
        got = d["measured"]["peak_dp_flops_per_s"].get(key, 0)
        if got > d["ceilings"]["peak_flops_per_s"][key]["dp"] * 1.001:
            assert f"the measured {w} peak" in text, f"no note on the measured {w} peak"
print(f"ok: {len(items)} points, {len(labels)} labels apart, {len(titles)} ceilings")
