#!/usr/bin/env python3
"""crop.py RAW X Y W H OUT.png: cuts a box out of a raw `screencap` (12- or 16-byte header,
RGBA_8888) and writes it as PNG: the tests' reference images, cut from the stand-in's screen."""
import struct
import sys

from standin import png_bytes

raw = open(sys.argv[1], "rb").read()
w, h, fmt = struct.unpack("<III", raw[:12])
header = len(raw) - w * h * 4
if header not in (12, 16) or fmt != 1:
    sys.exit(f"crop.py: expected a raw RGBA screencap with a 12- or 16-byte header, got {len(raw)} bytes for {w}x{h} format {fmt}")
x, y, bw, bh = (int(v) for v in sys.argv[2:6])
px = raw[header:]
box = b"".join(px[(y + r) * w * 4 + x * 4:(y + r) * w * 4 + (x + bw) * 4] for r in range(bh))
open(sys.argv[6], "wb").write(png_bytes(bw, bh, box))
