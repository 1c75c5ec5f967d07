// The device side of eft_probe.hpp: the EFTs exactly as kernels use them (core/numerics/eft.hpp, i.e.
// core/numerics/numerics.h with __dadd_rn & co. under __CUDA_ARCH__).
#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/eft_probe.hpp"
#include "core/numerics/eft.hpp"

namespace accsum::cuda {
namespace {

__global__ void eft_probe_kernel(const double* a, const double* b, int n, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double* o = out + kEftProbeOutputs * i;
  two_sum(a[i], b[i], o[0], o[1]);
  fast_two_sum(a[i], b[i], o[2], o[3]);
  split(a[i], o[4], o[5]);
  two_prod_dekker(a[i], b[i], o[6], o[7]);
  two_prod_fma(a[i], b[i], o[8], o[9]);
}

}  // namespace

std::vector<double> eft_probe(const std::vector<double>& a, const std::vector<double>& b) {
  const int n = static_cast<int>(a.size());
  std::vector<double> out(static_cast<size_t>(kEftProbeOutputs) * n);
  if (n == 0) return out;
  DeviceBuffer<double> da(n), db(n), dout(out.size());
  ACCSUM_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  ACCSUM_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  eft_probe_kernel<<<(n + 255) / 256, 256>>>(da.get(), db.get(), n, dout.get());
  ACCSUM_CUDA_CHECK(cudaGetLastError());
  ACCSUM_CUDA_CHECK(cudaMemcpy(out.data(), dout.get(), out.size() * sizeof(double), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace accsum::cuda
