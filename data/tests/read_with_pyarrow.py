#!/usr/bin/env python3
"""Read a PacoZero chunk with pyarrow and print a JSON summary.

Usage: read_with_pyarrow.py <stem path without suffix>

Checks the key-value metadata and the column types, then prints
{"positions": n, "games": m, "first": {...}, "metadata": {...}} on stdout.
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def main() -> int:
    stem = sys.argv[1]
    pos = pq.read_table(stem + ".positions.parquet")
    games = pq.read_table(stem + ".games.parquet")
    kv = {k.decode(): v.decode() for k, v in (pq.read_metadata(stem + ".positions.parquet").metadata or {}).items()}
    expected_types = {
        "schema_version": pa.uint16(),
        "game_id": pa.uint64(),
        "ply": pa.uint32(),
        "side_to_move": pa.uint8(),
        "full_search": pa.bool_(),
        "root_q": pa.float32(),
        "action": pa.uint16(),
        "result": pa.int8(),
        "moves_left": pa.uint32(),
        "weight": pa.float32(),
        "network_id": pa.string(),
        "truncated": pa.bool_(),
    }
    for name, t in expected_types.items():
        got = pos.schema.field(name).type
        if got != t:
            print(f"column {name}: type {got}, expected {t}", file=sys.stderr)
            return 1
    if not pa.types.is_list(pos.schema.field("planes").type):
        print("planes is not a list", file=sys.stderr)
        return 1
    if pos.schema.field("planes").type.value_type != pa.uint64():
        print("planes items are not uint64", file=sys.stderr)
        return 1
    if not pa.types.is_fixed_size_list(pos.schema.field("root_wdl").type):
        print("root_wdl is not a fixed-size list", file=sys.stderr)
        return 1
    aux = pos.schema.field("aux_targets").type
    if not pa.types.is_fixed_size_list(aux) or aux.value_type != pa.bool_() or aux.list_size != len(kv["aux_targets"].split(",")):
        print(f"aux_targets: type {aux}, expected a fixed-size list of bool, one per name of {kv['aux_targets']!r}", file=sys.stderr)
        return 1
    first = pos.slice(0, 1).to_pylist()[0]
    g0 = games.slice(0, 1).to_pylist()[0]
    out = {
        "positions": pos.num_rows,
        "games": games.num_rows,
        "metadata": {k: kv[k] for k in sorted(kv) if not k.startswith("ARROW")},
        "first": {
            "game_id": first["game_id"],
            "ply": first["ply"],
            "planes_len": len(first["planes"]),
            "legal_actions": first["legal_actions"],
            "root_wdl": first["root_wdl"],
            "network_id": first["network_id"],
            "aux_targets": first["aux_targets"],
        },
        "fifth_aux_targets": pos.slice(4, 1).to_pylist()[0]["aux_targets"],
        "policy_sum_max_err": max(abs(sum(p) - 1.0) for p in pos.column("policy").to_pylist()),
        "game0": {"result": g0["result"], "actions": g0["actions"], "seed": g0["seed"]},
    }
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
