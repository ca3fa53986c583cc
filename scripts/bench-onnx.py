#!/usr/bin/env python3
"""FastNet against ONNX Runtime on the same network (docs/onnx.md).

    scripts/bench-onnx.py [--configs configs/quick.toml configs/gpu.toml]
                          [--threads 1 2] [--batches 1 8 32 256] [--seconds 1.0]

For each configuration's [net] table: makes a Paco Ŝako network of that
architecture (a few self-play games with the uniform evaluator, one training
step, so that it is a real model file), exports it with
`Network.export_onnx`, and times the same forward pass on the same
self-play positions in both runtimes, for each thread count and batch size:

* FastNet: `pacozero.Network.load(model, threads=t).forward(x)`, the
  workers' CPU inference (batches under 16 on the calling thread, larger
  ones split over a pool of `t` threads);
* ONNX Runtime: an `InferenceSession` (CPU provider, every graph
  optimisation, `intra_op_num_threads = t`, `inter_op_num_threads = 1`).

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
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 8, 32, 256])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if min(a.threads) < 1 or min(a.batches) < 1 or a.seconds <= 0 or a.repeat < 1:
        sys.exit("--threads, --batches and --repeat must be at least 1, --seconds above 0")

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
        print("| net | threads | batch | FastNet pos/s | ORT pos/s | FastNet / ORT |")
        print("|---|---:|---:|---:|---:|---:|")
        for config in a.configs:
            net = net_table(config)
            model = make_model(work, data_run, net)
            onnx_file = work / "bench.onnx"
            pacozero.Network.load(model).export_onnx(onnx_file)
            for threads in a.threads:
                fast = pacozero.Network.load(model, threads=threads)
                opts = ort.SessionOptions()
                opts.intra_op_num_threads = threads
                opts.inter_op_num_threads = 1
                opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                sess = ort.InferenceSession(str(onnx_file), opts, providers=["CPUExecutionProvider"])
                for batch in a.batches:
                    x = np.ascontiguousarray(x_all[:batch])
                    f, o = 0.0, 0.0
                    for _ in range(a.repeat):  # alternate, so that load hits both alike
                        f = max(f, best_rate(lambda v: fast.forward(v), x, a.seconds, 1))
                        o = max(o, best_rate(lambda v: sess.run(None, {"planes": v}), x, a.seconds, 1))
                    name = f"{net['blocks']}x{net['channels']} ({pathlib.Path(config).name})"
                    print(f"| {name} | {threads} | {batch} | {f:,.0f} | {o:,.0f} | {f / o:.2f} |", flush=True)


if __name__ == "__main__":
    main()
