"""Draws the web app's icons (a white leaf on PlantGuide's green, with room to spare for masks) as PNG files, with
nothing but the standard library. Run it after changing the drawing; the icons are committed.

Usage: python3 Scripts/web/make_icons.py Sources/Gateway/WebAssets/static
"""
import math
import os
import struct
import sys
import zlib

GREEN = (0x22, 0x61, 0x3A)
WHITE = (0xFF, 0xFF, 0xFF)


def inside_leaf(x, y):
    """Whether (x, y), in a unit square, is in the leaf: two circle arcs meeting at the tips, turned 45 degrees."""
    u, v = x - 0.5, y - 0.5
    a, b = (u + v) / math.sqrt(2), (v - u) / math.sqrt(2)  # along and across the leaf
    if abs(a) > 0.3:
        return False
    radius = (0.3 ** 2 + 0.12 ** 2) / (2 * 0.12)
    return abs(b) + (radius - 0.12) <= math.sqrt(max(0.0, radius ** 2 - a ** 2))


def on_vein(x, y):
    u, v = x - 0.5, y - 0.5
    a, b = (u + v) / math.sqrt(2), (v - u) / math.sqrt(2)
    return abs(b) < 0.012 and -0.34 < a < 0.26


def png(size):
    rows = []
    for j in range(size):
        row = bytearray([0])
        for i in range(size):
            x, y = (i + 0.5) / size, (j + 0.5) / size
            row += bytes(GREEN if on_vein(x, y) or not inside_leaf(x, y) else WHITE)
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows), 9)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


def main():
    folder = sys.argv[1]
    for size in (192, 512):
        with open(os.path.join(folder, "icon-%d.png" % size), "wb") as file:
            file.write(png(size))


if __name__ == "__main__":
    main()
