"""Is torch.sum correctly rounded? accsum.verify runs it on the corpus of `accsum verify` and judges
every answer with the exact (MPFR) oracle; the first failure is shrunk to a small counter-example.

Run: python examples/python/verify_torch_sum.py
"""

import torch

import accsum

device = "cuda" if torch.cuda.is_available() else "cpu"


def torch_sum(x):
    return float(torch.sum(torch.from_numpy(x).to(device)))


for claim in ("cr", "faithful", "none"):
    result = accsum.verify(torch_sum, claim=claim, reproducible=(claim == "none"))
    print(result)
    if result.counterexample is not None:
        print("  torch.sum:", torch_sum(result.counterexample), " accsum.sum:", float(accsum.sum(result.counterexample)))
