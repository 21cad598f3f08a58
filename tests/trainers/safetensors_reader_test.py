#!/usr/bin/env python3
"""Reads a deepladder export with nothing but the safetensors format description (an 8-byte
little-endian header length, a JSON header, raw little-endian data) and checks every tensor,
bit for bit, against the worker's own values. With torch installed, it also loads the file with
torch (safetensors.torch when present, else torch.frombuffer) and checks the same.

usage: safetensors_reader_test.py SAFETENSORS_REFERENCE_PROGRAM
"""
import json
import os
import struct
import subprocess
import sys
import tempfile


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack("<Q", data[:8])
    assert header_len % 8 == 0, f"header length {header_len} is not 8-byte aligned"
    header = json.loads(data[8:8 + header_len])
    body = data[8 + header_len:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        assert entry["dtype"] == "F32", f"{name}: dtype {entry['dtype']}"
        count = 1
        for d in entry["shape"]:
            count *= d
        assert end - begin == 4 * count, f"{name}: {end - begin} bytes for {count} floats"
        words = struct.unpack(f"<{count}I", body[begin:end])
        tensors[name] = (entry["shape"], ["%08x" % w for w in words])
    return header, tensors


def main():
    program = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="deepladder-reader-") as work:
        subprocess.run([program, work], check=True, stdout=subprocess.DEVNULL)
        header, tensors = read_safetensors(os.path.join(work, "model.safetensors"))
        with open(os.path.join(work, "reference.json")) as f:
            reference = json.load(f)
        description = json.load(open(os.path.join(work, "model.json")))
        assert description["format"] == "deepladder-weights"
        assert sorted(tensors) == sorted(reference), (sorted(tensors), sorted(reference))
        for name, expected in reference.items():
            shape, bits = tensors[name]
            assert shape == expected["shape"], f"{name}: shape {shape} != {expected['shape']}"
            assert bits == expected["bits"], f"{name}: values differ"
            assert description["tensors"][name]["shape"] == shape
        checked = len(reference)
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None:
            path = os.path.join(work, "model.safetensors")
            try:
                from safetensors.torch import load_file
                loaded = load_file(path)
            except ImportError:
                loaded = {}
                raw = open(path, "rb").read()
                (n,) = struct.unpack("<Q", raw[:8])
                for name, entry in header.items():
                    if name == "__metadata__":
                        continue
                    b, e = entry["data_offsets"]
                    loaded[name] = torch.frombuffer(bytearray(raw[8 + n + b:8 + n + e]),
                                                    dtype=torch.float32).view(entry["shape"])
            for name, expected in reference.items():
                words = loaded[name].contiguous().view(torch.int32).flatten().tolist()
                assert ["%08x" % (w & 0xffffffff) for w in words] == expected["bits"], name
        print(f"checked {checked} tensors bit for bit" + (" (and with torch)" if torch else ""))


if __name__ == "__main__":
    main()
