#!/usr/bin/env python3
"""Checks an ONNX model written by `mancala-zero export --format onnx` in onnxruntime.

    python3 scripts/onnx_check.py MODEL.onnx [TOLERANCE]

It loads MODEL.onnx and its sidecar MODEL.onnx.json, runs the sidecar's check inputs (a few
encoded positions) through onnxruntime, and compares each output (policy logits, WDL logits,
margin) with the values burn computed at export. It runs the inputs again one at a time to
check the batch axis is really free. Exit status 0 when every difference is within
TOLERANCE (default 1e-5). Needs: pip install onnxruntime numpy.
"""
import json
import sys

import numpy as np
import onnxruntime as ort


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = sys.argv[1]
    tolerance = float(sys.argv[2]) if len(sys.argv) == 3 else 1e-5
    with open(path + ".json") as f:
        meta = json.load(f)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    graph_inputs = session.get_inputs()
    if len(graph_inputs) != 1:
        print(f"{path}: expected one input, found {len(graph_inputs)}", file=sys.stderr)
        return 1
    name = graph_inputs[0].name
    check = meta["check"]
    x = np.asarray(check["inputs"], dtype=np.float32)
    model = meta["model"]
    print(f"model: {model['rules']} ({model['net']['architecture']}, width {model['net']['width']}, "
          f"{model['net']['blocks']} blocks), encoding v{model['encoding_version']}")
    print(f"input {name}: {graph_inputs[0].shape}; check batch {x.shape}")
    singles = [session.run(None, {name: x[i:i + 1]}) for i in range(len(x))]
    fixed = meta.get("fixed_batch")
    if fixed is None:
        batched = session.run(None, {name: x})
    else:
        # A graph exported for a fixed batch (the conv tower): one position a call.
        print(f"graph fixed to batch {fixed}: checking one position a call")
        batched = [np.concatenate([s[k] for s in singles]) for k in range(len(singles[0]))]
    worst = 0.0
    for k, output in enumerate(meta["outputs"]):
        want = np.asarray(check[output], dtype=np.float32)
        got = batched[k]
        if got.shape != want.shape:
            print(f"{output}: shape {got.shape}, burn gave {want.shape}", file=sys.stderr)
            return 1
        one_by_one = np.concatenate([s[k] for s in singles])
        diff = float(max(np.abs(got - want).max(), np.abs(one_by_one - want).max()))
        worst = max(worst, diff)
        print(f"{output}: shape {got.shape}, max |onnxruntime - burn| = {diff:.2e}")
    ok = worst <= tolerance
    print(f"{'agree' if ok else 'DISAGREE'}: worst difference {worst:.2e} (tolerance {tolerance:.0e})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
