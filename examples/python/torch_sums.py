"""accsum on PyTorch CUDA tensors: zero-copy, ordered on the tensor's current stream, result a 0-d
tensor on the same device. On a machine without CUDA it sums a CPU tensor (through DLPack).

Run: python examples/python/torch_sums.py
"""

import torch

import accsum

device = "cuda" if torch.cuda.is_available() and accsum.has_cuda() else "cpu"
x = torch.randn(1 << 24, dtype=torch.float64, device=device) * 1e10
x[0] = 1e300
x[1] = -1e300
stream = torch.cuda.Stream() if device == "cuda" else None
with torch.cuda.stream(stream) if stream else torch.no_grad():
    s = accsum.sum(x)  # queued after the work on the current stream
    t = torch.sum(x)
print(f"device {device}: accsum.sum {float(s)!r}  torch.sum {float(t)!r}")
# The same bits on every run and every launch shape; torch.sum need not agree with itself.
print("accsum reproducible:", all(float(accsum.sum(x)) == float(s) for _ in range(5)))
