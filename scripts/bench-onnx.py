#!/usr/bin/env python3
"""FastNet against ONNX Runtime on the same network (docs/onnx.md).

    scripts/bench-onnx.py [--configs configs/quick.toml configs/gpu.toml]
                          [--sizes 6x64] [--models M.pzmodel ...]
                          [--threads 1 2] [--batches 1 8 32 256]
                          [--seconds 1.0] [--int8]

For each configuration's [net] table: makes a Paco Ŝako network of that
architecture (a few self-play games with the uniform evaluator, one training
step, so that it is a real model file), exports it with
`Network.export_onnx`, and times the same forward pass on the same
self-play positions in both runtimes, for each thread count and batch size:

* FastNet: `pacozero.Network.load(model, threads=t).forward(x)`, the
  workers' CPU inference (batches under 8 on the calling thread, larger
  ones split over a pool of `t` threads);
* ONNX Runtime: an `InferenceSession` (CPU provider, every graph
  optimisation, `intra_op_num_threads = t`, `inter_op_num_threads = 1`).

`--sizes BxC ...` adds networks of the first configuration's [net] with
`B` blocks of `C` channels. `--models` adds trained Paco Ŝako model files
as they are: a network trained one step has denser activations than a
trained one, and FastNet's heads and stem read only nonzero values, so a
trained network times FastNet as self-play runs it (ONNX Runtime's time
does not depend on the values). With `--int8`, both runtimes also run the
network in int8, and the table gains their columns:

* FastNet: the same network loaded with `PACOZERO_PRECISION=int8` (the
  tower's convolutions in int8, quantized at load; docs/backends.md);
* ONNX Runtime: the exported model quantized by
  `onnxruntime.quantization.quantize_static` (QDQ format, int8 weights
  per channel, uint8 activations), calibrated on the same self-play
  positions the table is timed on.

Both are called from Python, so each figure includes one binding call per
batch (a few microseconds for either). Each figure is the best of
`--repeat` rounds of at least `--seconds`, the two runtimes taking turns,
so a busy machine slows both alike. Prints a Markdown table: positions per
second and the ratio FastNet / ORT (above 1: FastNet is faster).

Needs the `pacozero` binary (PACOZERO_BIN, default
$CARGO_TARGET_DIR/release/pacozero) and a Python with `pacozero`, `numpy`
and `onnxruntime` (the tests' virtual environment, scripts/test-python.sh).
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

import numpy as np
import onnxruntime as ort

import pacozero

ROOT = pathlib.Path(__file__).resolve().parents[1]

SELFPLAY = """
seed = 5
threads = 1
games_per_thread = 4
games_per_chunk = 4
max_decisions = 80
start_positions = "fischer_random"

[search]
full_simulations = 2
cheap_simulations = 1
"""

TRAIN = """
[train]
batch_size = 16
warmup_steps = 1
min_positions = 1
progress = false
plot_every = 0
"""


def binary():
    exe = os.environ.get("PACOZERO_BIN")
    if exe:
        return exe
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(os.environ.get("TMPDIR", "/tmp"), "pacozero-target")
    return os.path.join(target, "release", "pacozero")


def cli(*args):
    p = subprocess.run([binary(), *map(str, args)], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        sys.exit(f"pacozero {' '.join(map(str, args))} failed:\n{p.stdout}\n{p.stderr}")


def net_table(config):
    with open(config, "rb") as f:
        net = tomllib.load(f).get("net")
    if not net:
        sys.exit(f"{config}: no [net] table")
    return net


def toml_table(name, table):
    lines = [f"[{name}]"]
    for k, v in table.items():
        lines.append(f"{k} = {str(v).lower() if isinstance(v, bool) else repr(v) if isinstance(v, str) else v}")
    return "\n".join(lines) + "\n"


def make_model(work, data_run, net):
    """A model file of architecture `net` trained one step on `data_run`'s games."""
    run = work / f"run-{net['blocks']}x{net['channels']}"
    (run / "data").parent.mkdir(parents=True, exist_ok=True)
    if not (run / "data").exists():
        os.symlink(data_run / "data", run / "data")
    cfg = work / f"train-{net['blocks']}x{net['channels']}.toml"
    cfg.write_text(toml_table("net", net) + TRAIN)
    cli("train", "--run", run, "--config", cfg, "--steps", "1", "--export", "bench", "--quiet")
    return run / "models" / "bench.pzmodel"


class Calibration:
    """`quantize_static`'s calibration data: the positions, one at a time."""

    def __init__(self, x):
        self.rows = iter(np.ascontiguousarray(x[i : i + 1]) for i in range(len(x)))

    def get_next(self):
        row = next(self.rows, None)
        return None if row is None else {"planes": row}


def quantized_onnx(onnx_file, x, out):
    """`onnx_file` quantized to int8 by ONNX Runtime, calibrated on `x`."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    quantize_static(
        str(onnx_file),
        str(out),
        Calibration(x),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
    )
    return out


def session(onnx_file, threads):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(onnx_file), opts, providers=["CPUExecutionProvider"])


def load_fastnet(model, threads, precision):
    """The model in FastNet, its tower in `precision` (the process's choice at load)."""
    os.environ["PACOZERO_PRECISION"] = precision
    try:
        return pacozero.Network.load(model, threads=threads)
    finally:
        del os.environ["PACOZERO_PRECISION"]


def best_rate(fn, x, seconds, rounds):
    """Positions per second of `fn(x)`: best of `rounds` timings of at least `seconds`."""
    fn(x)  # warm up (allocations, thread pools)
    best = 0.0
    for _ in range(rounds):
        n, t0 = 0, time.perf_counter()
        while True:
            fn(x)
            n += 1
            dt = time.perf_counter() - t0
            if dt >= seconds:
                break
        best = max(best, n * len(x) / dt)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", nargs="+", default=[ROOT / "configs/quick.toml", ROOT / "configs/gpu.toml"])
    ap.add_argument("--sizes", nargs="*", default=[], help="more networks, BxC (blocks x channels), of the first configuration's [net]")
    ap.add_argument("--models", nargs="*", default=[], help="trained Paco Ŝako .pzmodel files to time as they are")
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 8, 32, 256])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--int8", action="store_true", help="also time both runtimes in int8")
    a = ap.parse_args()
    if min(a.threads) < 1 or min(a.batches) < 1 or a.seconds <= 0 or a.repeat < 1:
        sys.exit("--threads, --batches and --repeat must be at least 1, --seconds above 0")
    nets = [(f"{n['blocks']}x{n['channels']} ({pathlib.Path(c).name})", n) for c in a.configs for n in [net_table(c)]]
    for size in a.sizes:
        try:
            blocks, channels = (int(v) for v in size.split("x"))
        except ValueError:
            sys.exit(f"--sizes {size}: expected BxC, blocks x channels (e.g. 6x64)")
        nets.append((f"{size} ({pathlib.Path(a.configs[0]).name} [net])", {**net_table(a.configs[0]), "blocks": blocks, "channels": channels}))

    for model in a.models:
        if not pathlib.Path(model).is_file():
            sys.exit(f"--models {model}: no such file")
        nets.append((f"{pathlib.Path(model).stem} (trained)", pathlib.Path(model).resolve()))

    with tempfile.TemporaryDirectory(prefix="bench-onnx-") as tmp:
        work = pathlib.Path(tmp)
        (work / "selfplay.toml").write_text(SELFPLAY)
        data_run = work / "data-run"
        cli("selfplay", "--game", "paco", "--config", work / "selfplay.toml", "--run", data_run, "--games", "8", "--evaluator", "uniform", "--quiet")
        x_all = np.concatenate([b["x"] for b in pacozero.data.open(data_run, window=10**9, shuffle=False, batch_size=512)])
        if len(x_all) < max(a.batches):
            x_all = np.concatenate([x_all] * (max(a.batches) // len(x_all) + 1))
        print(f"ONNX Runtime {ort.__version__}, {os.cpu_count()} CPUs, positions from Paco Ŝako self-play; best of {a.repeat} x {a.seconds} s")
        print()
        header = "| net | threads | batch | FastNet pos/s | ORT pos/s | FastNet / ORT |"
        rule = "|---|---:|---:|---:|---:|---:|"
        if a.int8:
            header += " FastNet int8 pos/s | ORT int8 pos/s | FastNet / ORT, int8 |"
            rule += "---:|---:|---:|"
        print(header)
        print(rule)
        for name, net in nets:
            model = net if isinstance(net, pathlib.Path) else make_model(work, data_run, net)
            onnx_file = work / "bench.onnx"
            pacozero.Network.load(model).export_onnx(onnx_file)
            onnx_int8 = quantized_onnx(onnx_file, x_all[: max(a.batches)], work / "bench-int8.onnx") if a.int8 else None
            for threads in a.threads:
                runs = [(load_fastnet(model, threads, "fp32"), session(onnx_file, threads))]
                if a.int8:
                    runs.append((load_fastnet(model, threads, "int8"), session(onnx_int8, threads)))
                for batch in a.batches:
                    x = np.ascontiguousarray(x_all[:batch])
                    cells = []
                    for fast, sess in runs:
                        f, o = 0.0, 0.0
                        for _ in range(a.repeat):  # alternate, so that load hits both alike
                            f = max(f, best_rate(lambda v: fast.forward(v), x, a.seconds, 1))
                            o = max(o, best_rate(lambda v: sess.run(None, {"planes": v}), x, a.seconds, 1))
                        cells.append(f"{f:,.0f} | {o:,.0f} | {f / o:.2f}")
                    print(f"| {name} | {threads} | {batch} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
