#!/usr/bin/env python3
"""An independent TensorBoard event-file reader and writer for deepladder's tests and benchmark.

Written from the format's documentation, sharing no code with deepladder's C++ (core/tensorboard/):
python3's struct, a CRC-32C in Python, and a minimal protobuf wire-format decoder. TFRecord:
uint64 length, masked CRC-32C of the length, data, masked CRC-32C of the data; masked crc =
((crc >> 15) | (crc << 17)) + 0xa282ead8. Events (event.proto): wall_time = 1 (double), step = 2
(int64), summary = 5; Summary.value = 1; Value: tag = 1, simple_value = 2 (float), tensor = 8,
metadata = 9 (plugin_data = 1: plugin_name = 1, content = 2); TensorProto: dtype = 1 (1 float,
2 double), tensor_shape = 2, tensor_content = 4, float_val = 5, double_val = 6; hparams plugin
content: HParamsPluginData.session_start_info = 3, SessionStartInfo.hparams = 1 (map of
google.protobuf.Value: number = 2, string = 3, bool = 4).

Usage:
  tb_events.py read LOGDIR              JSON on stdout: {run: {"scalars": [[tag, step, value, wall]],
                                        "hparams": {...}}}, runs named by their path below LOGDIR
  tb_events.py write-ladder LOGDIR CSV  a small ladder in the spellings trainers use (PyTorch
                                        simple_value, TF2 float tensors with plugin metadata once,
                                        tensor_content doubles, histogram and text tensors to be
                                        ignored, hparams, config.json), and the same runs' final
                                        losses as a results CSV (arm,compute_flops,val_loss,...)
"""
import json
import os
import struct
import sys

# --- CRC-32C (Castagnoli, reflected 0x82F63B78) ---------------------------------------------
_TABLE = []
for _b in range(256):
    _c = _b
    for _ in range(8):
        _c = (_c >> 1) ^ (0x82F63B78 if _c & 1 else 0)
    _TABLE.append(_c)


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc ^ 0xFFFFFFFF


def masked_crc(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


# --- TFRecord -------------------------------------------------------------------------------
def read_records(path):
    """Yields each record's data; raises ValueError naming the byte offset of a bad record."""
    with open(path, "rb") as f:
        buf = f.read()
    pos = 0
    while pos < len(buf):
        if len(buf) - pos < 12:
            raise ValueError("%s: byte %d: truncated header" % (path, pos))
        header = buf[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", buf[pos + 8:pos + 12])
        if masked_crc(header) != length_crc:
            raise ValueError("%s: byte %d: bad length CRC" % (path, pos))
        if pos + 12 + length + 4 > len(buf):
            raise ValueError("%s: byte %d: truncated record" % (path, pos))
        data = buf[pos + 12:pos + 12 + length]
        (data_crc,) = struct.unpack("<I", buf[pos + 12 + length:pos + 16 + length])
        if masked_crc(data) != data_crc:
            raise ValueError("%s: byte %d: bad data CRC" % (path, pos))
        yield data
        pos += 16 + length


def frame_record(data):
    header = struct.pack("<Q", len(data))
    return (header + struct.pack("<I", masked_crc(header)) + data +
            struct.pack("<I", masked_crc(data)))


# --- protobuf wire format ---------------------------------------------------------------------
def _varint(buf, pos):
    value = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("varint past the end")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def fields(buf):
    """Yields (number, wire_type, value): an int (varint), raw bytes (fixed32/64, length-delimited)."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            size, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + size], pos + size
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("wire type %d" % wire)
        yield number, wire, value


def enc_varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def enc_field(number, wire, payload):
    key = enc_varint((number << 3) | wire)
    if wire == 0:
        return key + enc_varint(payload)
    if wire == 2:
        return key + enc_varint(len(payload)) + payload
    return key + payload  # fixed32 / fixed64: already packed


# --- events -----------------------------------------------------------------------------------
def _tensor_scalar(buf):
    dtype, dims, content, values = 0, [], b"", []
    for n, w, v in fields(buf):
        if n == 1:
            dtype = v
        elif n == 2:
            for dn, dw, dv in fields(v):
                if dn == 2:
                    dims.append(dict((a, b) for a, _, b in fields(dv)).get(1, 0))
        elif n == 4:
            content = v
        elif n == 5:
            values += [x for (x,) in struct.iter_unpack("<f", v)]
        elif n == 6:
            values += [x for (x,) in struct.iter_unpack("<d", v)]
    count = 1
    for d in dims:
        count *= d
    if count != 1 or dtype not in (1, 2):
        return None
    if not values and content:
        values = [x for (x,) in struct.iter_unpack("<f" if dtype == 1 else "<d", content)]
    return values[0] if len(values) == 1 else None


def _hparams(content):
    out = {}
    for n, _, v in fields(content):
        if n != 3:
            continue
        for en, _, entry in fields(v):
            if en != 1:
                continue
            key, value = None, None
            for kn, _, kv in fields(entry):
                if kn == 1:
                    key = kv.decode()
                elif kn == 2:
                    for vn, _, vv in fields(kv):
                        if vn == 2:
                            (value,) = struct.unpack("<d", vv)
                        elif vn == 3:
                            value = vv.decode()
                        elif vn == 4:
                            value = bool(vv)
            if key is not None and value is not None:
                out[key] = value
    return out


def read_events(path, plugins, on_scalar, hparams):
    """Calls on_scalar(tag, step, value, wall) for each scalar of one event file."""
    for record in read_records(path):
        wall, step, summary = 0.0, 0, None
        for n, w, v in fields(record):
            if n == 1 and w == 1:
                (wall,) = struct.unpack("<d", v)
            elif n == 2 and w == 0:
                step = v - (1 << 64) if v >= (1 << 63) else v
            elif n == 5 and w == 2:
                summary = v
        if summary is None:
            continue
        for n, _, value in fields(summary):
            if n != 1:
                continue
            tag, simple, tensor, plugin, content, has_meta = "", None, None, "", b"", False
            for vn, vw, vv in fields(value):
                if vn == 1:
                    tag = vv.decode()
                elif vn == 2 and vw == 5:
                    (simple,) = struct.unpack("<f", vv)
                elif vn == 8:
                    tensor = vv
                elif vn == 9:
                    has_meta = True
                    for mn, _, mv in fields(vv):
                        if mn == 1:
                            for pn, _, pv in fields(mv):
                                if pn == 1:
                                    plugin = pv.decode()
                                elif pn == 2:
                                    content = pv
            if has_meta:
                plugins.setdefault(tag, plugin)
            if plugin == "hparams":
                hparams.update(_hparams(content))
                continue
            if simple is not None:
                on_scalar(tag, step, simple, wall)
            elif tensor is not None and plugins.get(tag, "") in ("", "scalars"):
                scalar = _tensor_scalar(tensor)
                if scalar is not None:
                    on_scalar(tag, step, scalar, wall)


def read_logdir(logdir):
    runs = {}
    for dirpath, _, files in sorted(os.walk(logdir)):
        events = sorted(f for f in files if f.startswith("events.out.tfevents."))
        if not events:
            continue
        rel = os.path.relpath(dirpath, logdir)
        name = os.path.basename(os.path.abspath(logdir)) if rel == "." else rel
        run = runs.setdefault(name, {"scalars": [], "hparams": {}})
        for f in events:
            read_events(os.path.join(dirpath, f), {},
                        lambda t, s, v, w: run["scalars"].append([t, s, v, w]), run["hparams"])
    return runs


# --- writing a ladder the way trainers write them ----------------------------------------------
def _f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _event(wall, step, values):
    summary = b"".join(enc_field(1, 2, v) for v in values)
    return (enc_field(1, 1, struct.pack("<d", wall)) + enc_field(2, 0, step) +
            enc_field(5, 2, summary))


def _metadata(plugin, content=b""):
    data = enc_field(1, 2, plugin.encode()) + (enc_field(2, 2, content) if content else b"")
    return enc_field(9, 2, enc_field(1, 2, data))


def _simple(tag, x):
    return enc_field(1, 2, tag.encode()) + enc_field(2, 5, struct.pack("<f", x))


def _tensor(tag, tensor, plugin=None):
    meta = _metadata(plugin) if plugin else b""
    return enc_field(1, 2, tag.encode()) + meta + enc_field(8, 2, tensor)


def _hparams_event(wall, hparams):
    entries = b""
    for key, value in hparams.items():
        if isinstance(value, bool):
            v = enc_field(4, 0, int(value))
        elif isinstance(value, (int, float)):
            v = enc_field(2, 1, struct.pack("<d", float(value)))
        else:
            v = enc_field(3, 2, str(value).encode())
        entries += enc_field(1, 2, enc_field(1, 2, key.encode()) + enc_field(2, 2, v))
    content = enc_field(3, 2, entries)  # HParamsPluginData.session_start_info
    value = enc_field(1, 2, b"_hparams_/session_start_info") + _metadata("hparams", content)
    return enc_field(1, 1, struct.pack("<d", wall)) + enc_field(5, 2, enc_field(1, 2, value))


def write_ladder(logdir, results_csv):
    """Two arms x four sizes; final loss L = E + A (C/1e18)^-gamma per arm (gamma 0.11 vs 0.12)."""
    arms = {"vanilla": (1.8, 1.2, 0.11), "deep": (1.8, 1.25, 0.12)}
    rows = []
    for a, (arm, (e, amp, gamma)) in enumerate(sorted(arms.items())):
        for i, params in enumerate([2e7, 5e7, 1.2e8, 3e8]):
            tokens = 20 * params
            flops = 6 * params * tokens
            final = e + amp * (flops / 1e18) ** -gamma
            name = "%s-n%d" % (arm, i)
            run_dir = os.path.join(logdir, name)
            os.makedirs(run_dir)
            wall0 = 1.7e9 + 1000 * (4 * a + i)
            out = frame_record(enc_field(1, 1, struct.pack("<d", wall0)) +
                               enc_field(3, 2, b"brain.Event:2"))
            out += frame_record(_hparams_event(wall0, {"arm": arm, "size": "n%d" % i,
                                                       "params": params, "lr": 3e-4,
                                                       "compile": True}))
            steps = 200
            for step in range(0, steps + 1, 10):
                wall = wall0 + step * 0.5
                progress = step / steps
                train = final + 0.3 * (1 - progress) + 0.01
                values = [_simple("train/loss", train)]  # PyTorch's SummaryWriter
                # lr as a double tensor_content scalar (no plugin metadata at all)
                lr = enc_field(1, 0, 2) + enc_field(2, 2, b"") + enc_field(4, 2, struct.pack(
                    "<d", 3e-4 * (1 - 0.9 * progress)))
                values.append(_tensor("learning_rate", lr))
                # a histogram-plugin tensor (shape [2, 3]) and a text one: not scalars
                hist = enc_field(1, 0, 2) + enc_field(2, 2, enc_field(2, 2, enc_field(1, 0, 2)) +
                                                      enc_field(2, 2, enc_field(1, 0, 3)))
                hist += enc_field(6, 2, struct.pack("<6d", 0, 1, 2, 1, 2, 3))
                values.append(_tensor("weights", hist, "histograms" if step == 0 else None))
                text = enc_field(1, 0, 7) + enc_field(8, 2, b"hello")
                values.append(_tensor("notes", text, "text" if step == 0 else None))
                if step % 50 == 0:  # TF2: float tensor, plugin "scalars" on the tag's first value
                    v = final + 0.3 * (1 - progress) ** 2
                    if step == steps:
                        v = final
                    val = enc_field(1, 0, 1) + enc_field(2, 2, b"") + enc_field(
                        5, 2, struct.pack("<f", v))
                    values.append(_tensor("eval/loss", val, "scalars" if step == 0 else None))
                out += frame_record(_event(wall, step, values))
            with open(os.path.join(run_dir, "events.out.tfevents.%d.testhost" % wall0), "wb") as f:
                f.write(out)
            with open(os.path.join(run_dir, "config.json"), "w") as f:
                json.dump({"tokens": tokens, "flops": flops, "model": {"n_layer": 4 + i}}, f)
            rows.append((arm, flops, _f32(final), params, tokens))
    with open(results_csv, "w") as f:
        f.write("arm,compute_flops,val_loss,params,tokens\n")
        for r in rows:
            f.write("%s,%r,%r,%r,%r\n" % r)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "read":
        json.dump(read_logdir(sys.argv[2]), sys.stdout)
    elif len(sys.argv) == 4 and sys.argv[1] == "write-ladder":
        write_ladder(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
