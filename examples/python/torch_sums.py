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

# float32 tensors: the exact sum rounded once to float32 (never through a float64 rounding first).
f = torch.tensor([1.0, 2.0**-24, 2.0**-70], dtype=torch.float32, device=device)
print("float32:", float(accsum.sum(f)) == 1.0 + 2.0**-23, "(torch.sum:", float(torch.sum(f)), ")")

# Matrix products: every entry correctly rounded (sgemm-ozaki on float32, dgemm-ozaki on float64); on
# CUDA tensors the product runs on the device and comes back as a CUDA tensor.
a = torch.randn(512, 256, dtype=torch.float32, device=device)
b = torch.randn(256, 384, dtype=torch.float32, device=device)
c = torch.as_tensor(accsum.matmul(a, b, accuracy="cr"))  # host tensors give a NumPy array
exact = torch.matmul(a.double(), b.double())  # float64 products of floats: close to the exact entries
print(f"matmul {tuple(c.shape)} on {c.device}: entries differing from float32(DGEMM):",
      int((c != exact.float()).sum()), "(DGEMM's own rounding error makes a few differ at most)")
