#!/usr/bin/env python3
"""Makes a smaller copy of the ICU data that Foundation links into every static Swift executable.

Foundation (swift-foundation-icu) links all of ICU's data, 34 MB, as one symbol (icudt76_dat) in the toolchain's
lib_FoundationICU.a. PlantGuide formats dates and numbers only in the web app's languages and en_US_POSIX, converts
only Unicode text, and breaks no Thai or Chinese words. So this keeps, from ICU's common data file, every item that
is not tied to one locale (time zones, calendars, plural rules, normalisation, likely subtags, the root locale) and
the locale items of the languages asked for (all their regional variants), and drops the rest: the other locales'
names, units, currencies, collation and zone names, the legacy charset converters (*.cnv; UTF-8/16/32, ASCII and
Latin-1 need none) and the word-break dictionaries (*.dict). A locale whose data is gone falls back to root, as ICU
does for any locale it lacks.

It writes an object file that defines the data as __wrap_<symbol>; Scripts/package links it with
`-Xlinker --wrap=<symbol>`, so Foundation's references take this copy and the archive's 34 MB is never pulled in.
The object's name holds a digest of the data, so that other data is another link command, which SwiftPM relinks.

Usage: trim_icu_data.py ARCHIVE LANGUAGES OUTPUT_DIR
  ARCHIVE: the toolchain's lib_FoundationICU.a; LANGUAGES: comma-separated language codes to keep (en,es);
  OUTPUT_DIR: where icu_data-DIGEST.o goes. Prints the symbol to wrap and the object's path on one line, and what
  was kept to standard error.
"""
import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile

ALIGNMENT = 16
PADDING = b"\xaa"  # what ICU's own packager (pkgdata) fills alignment gaps with
LOCALE_STEM = re.compile(r"^([a-z]{2,3})(_[A-Za-z0-9]+)*$")


def data_symbol(archive):
    """The member of the archive and the name of the symbol that hold ICU's common data (icudtNN_dat)."""
    listing = subprocess.run(["nm", "-A", "--defined-only", archive], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        match = re.match(r"^.*:(?P<member>[^:]+):[0-9a-f]+ [RrDd] (?P<symbol>icudt\d+_dat)$", line)
        if match:
            return match["member"], match["symbol"]
    sys.exit(f"trim_icu_data: no icudt*_dat symbol in {archive}")


def read_common_data(archive, member, work):
    """The bytes of the common data file: the member's read-only data section, which is that symbol alone."""
    subprocess.run(["ar", "x", os.path.abspath(archive), member], cwd=work, check=True)
    raw = os.path.join(work, "icudt.dat")
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.rodata", os.path.join(work, member), raw], check=True)
    with open(raw, "rb") as file:
        return file.read()


def items(data):
    """The header and the (name, bytes) items of an ICU common data file ("CmnD": a table of contents, sorted by name)."""
    header_size, magic1, magic2 = struct.unpack_from("<HBB", data, 0)
    if (magic1, magic2) != (0xDA, 0x27) or data[12:16] != b"CmnD":
        sys.exit("trim_icu_data: not an ICU common data file")
    count = struct.unpack_from("<I", data, header_size)[0]
    entries = [struct.unpack_from("<II", data, header_size + 4 + 8 * index) for index in range(count)]
    ends = [offset for _, offset in entries[1:]] + [len(data) - header_size]
    result = []
    for (name_offset, data_offset), end in zip(entries, ends):
        name_start = header_size + name_offset
        name = data[name_start:data.index(b"\0", name_start)].decode("ascii")
        result.append((name, data[header_size + data_offset:header_size + end]))
    return data[:header_size], result


def keeps(name, languages):
    """Whether an item (icudt76l/curr/de_AT.res) is one PlantGuide may need."""
    stem, _, extension = name.rsplit("/", 1)[-1].rpartition(".")
    if extension in ("cnv", "dict"):
        return False
    locale = LOCALE_STEM.match(stem)
    return not (locale and extension == "res" and locale.group(1) not in languages)


def pack(header, kept):
    """A common data file of the kept items, laid out as ICU's own packager lays it out."""
    def pad(length):
        return -length % ALIGNMENT

    names = bytearray()
    name_offsets = []
    table_size = 4 + 8 * len(kept)
    for name, _ in kept:
        name_offsets.append(table_size + len(names))
        names += name.encode("ascii") + b"\0"
    names += PADDING * pad(table_size + len(names))
    body = bytearray()
    data_offsets = []
    for _, item in kept:
        data_offsets.append(table_size + len(names) + len(body))
        body += item
        body += PADDING * pad(len(item))
    table = struct.pack("<I", len(kept)) + b"".join(struct.pack("<II", n, d) for n, d in zip(name_offsets, data_offsets))
    return header + table + bytes(names) + bytes(body)


def main():
    if len(sys.argv) != 4 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    archive, languages, output = sys.argv[1], set(sys.argv[2].split(",")), sys.argv[3]
    os.makedirs(output, exist_ok=True)
    member, symbol = data_symbol(archive)
    with tempfile.TemporaryDirectory() as work:
        original = read_common_data(archive, member, work)
    header, everything = items(original)
    # The reader and the packer must understand this toolchain's data exactly: all of it, packed again, is the same bytes.
    if pack(header, everything) != original:
        sys.exit(f"trim_icu_data: {symbol} in {archive} is not laid out as this script expects; nothing cut")
    kept = [(name, item) for name, item in everything if keeps(name, languages)]
    packed = pack(header, kept)
    digest = hashlib.sha256(packed).hexdigest()[:16]
    data_file = os.path.join(output, f"icudt-{digest}.dat")
    with open(data_file, "wb") as file:
        file.write(packed)
    assembly = os.path.join(output, f"icu_data-{digest}.s")
    with open(assembly, "w") as file:
        file.write(f"""    .section .rodata.{symbol},"a"
    .globl __wrap_{symbol}
    .type __wrap_{symbol}, @object
    .balign {ALIGNMENT}
__wrap_{symbol}:
    .incbin "{os.path.abspath(data_file)}"
    .size __wrap_{symbol}, . - __wrap_{symbol}
    .section .note.GNU-stack,"",@progbits
""")
    compiler = os.environ.get("CC") or "cc"
    obj = os.path.abspath(os.path.join(output, f"icu_data-{digest}.o"))
    subprocess.run([compiler, "-c", "-o", obj, assembly], check=True)
    before, after = sum(len(item) for _, item in everything), sum(len(item) for _, item in kept)
    print(f"trim_icu_data: kept {len(kept)} of {len(everything)} items, {after / 1e6:.1f} of {before / 1e6:.1f} MB"
          f" (languages {','.join(sorted(languages))})", file=sys.stderr)
    print(symbol, obj)


if __name__ == "__main__":
    main()
