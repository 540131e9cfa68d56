#!/usr/bin/env python3
"""Helpers for tests/e2e/report.sh (standard library only).

  report_check.py red PNG         number of pixels of the report's overlay colour (#ff2d55)
  report_check.py attr FILE ID A  attribute A of the element with id ID in a DOM dump
"""
import re
import struct
import sys
import zlib


def read_png(path):
    """Decodes an 8-bit, non-interlaced RGB or RGBA PNG: returns (width, height, channels, rows)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: expected a PNG file, got {data[:8]!r}")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise SystemExit(f"{path}: expected 8-bit RGB/RGBA non-interlaced, got depth {depth} type {ctype}")
            ch = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = w * ch
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - ch] if x >= ch else 0
            b = prev[x]
            c = prev[x - ch] if x >= ch else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, ch, rows


def main():
    if sys.argv[1] == "red":
        w, h, ch, rows = read_png(sys.argv[2])
        n = 0
        for row in rows:
            for x in range(0, w * ch, ch):
                r, g, b = row[x], row[x + 1], row[x + 2]
                if r > 220 and 20 < g < 80 and 50 < b < 120:
                    n += 1
        print(n)
    elif sys.argv[1] == "attr":
        dom = open(sys.argv[2], encoding="utf-8", errors="replace").read()
        m = re.search(r'<[^>]*\bid="%s"[^>]*>' % re.escape(sys.argv[3]), dom)
        if not m:
            print("")
            return
        a = re.search(r'\b%s="([^"]*)"' % re.escape(sys.argv[4]), m.group(0))
        print(a.group(1) if a else "")
    else:
        raise SystemExit("usage: report_check.py red PNG | attr FILE ID ATTR")


main()
