"""Runs an exported notebook with this machine's PyTorch, as Jupyter would: every code cell's
source in order, in one namespace. print() is replaced by a recorder, so each stage cell's
printed tensor comes back exactly (float32 bits), not as print()'s 4 decimals.

  python3 run.py NOTEBOOK.ipynb  ->  {"torch": version, "stages": [{"id", "shape", "bits"}]}
  python3 run.py --syntax        ->  reads a JSON list of code strings, prints the SyntaxErrors
"""
import ast
import json
import sys


def syntax_errors(codes):
    errors = []
    for code in codes:
        try:
            ast.parse(code)
        except SyntaxError as e:
            errors.append(f"{e.msg} in {code!r}")
    return errors


def run(path):
    import torch

    notebook = json.load(open(path, encoding="utf-8"))
    assert notebook["nbformat"] == 4, notebook["nbformat"]
    printed = []
    namespace = {"print": lambda *args, **kw: printed.extend(args)}
    stages = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = cell["source"]
        if isinstance(source, list):
            source = "".join(source)
        printed.clear()
        exec(compile(source, "<cell>", "exec"), namespace)
        stage = cell["metadata"].get("stage")
        if stage is None:
            continue
        tensors = [p for p in printed if isinstance(p, torch.Tensor)]
        assert len(printed) == 1 and len(tensors) == 1, f"{stage} printed {printed!r}"
        t = tensors[0].detach().to(torch.float32).contiguous()
        bits = t.reshape(-1).view(torch.int32).tolist()
        stages.append({"id": stage, "shape": list(t.shape), "bits": [b & 0xFFFFFFFF for b in bits]})
    return {"torch": torch.__version__, "stages": stages}


if __name__ == "__main__":
    if sys.argv[1] == "--syntax":
        print(json.dumps(syntax_errors(json.load(sys.stdin))))
    else:
        print(json.dumps(run(sys.argv[1])))
