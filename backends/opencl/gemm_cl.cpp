// The gemm family on OpenCL: the tiled SGEMM with selective compensation of core/numerics/gemm_serial.hpp
// (Badin, Bic, Dillencourt, Nicolau, "Improving accuracy for matrix multiplications on GPUs",
// 2011, Figs. 1-3), restated in OpenCL C: a 16 x 16 work-group stages 16 x 16 tiles of A and B in
// local memory; each work-item owns one entry and receives its products in the order k = 0..K-1
// with the definition's operations (FP_CONTRACT OFF, fma() only where fma = 1), so the result is
// bit for bit the cpu backend's (tests/test_gemm.cpp checks it on PoCL).
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "backends/opencl/cl_common.hpp"
#include "core/families/gemm_params.hpp"

namespace accsum::opencl {
namespace {

const char* kGemmSource = R"CLC(
#pragma OPENCL FP_CONTRACT OFF
#define TS 16
float mul_add(float a, float b, float p, int fma_on) {
  if (fma_on) return fma(a, b, p);
  float prod = a * b;
  return p + prod;
}
void comp_add(int comp, float* s, float* c, float x) {
  if (comp == 1) {  /* Kahan, Fig. 3 */
    float temp = *s;
    float y = x + *c;
    *s = temp + y;
    *c = (temp - *s) + y;
    return;
  }
  float big = *s, small = x;  /* Priest's DCS, Fig. 1 lines 5-11, Fig. 2's ordering */
  if (!(fabs(*s) >= fabs(x))) { big = x; small = *s; }
  float y = *c + small;
  float u = small - (y - *c);
  float t = y + big;
  float v = y - (t - big);
  float z = u + v;
  *s = t + z;
  *c = z - (*s - t);
}
__kernel void sgemm_tiled(int M, int N, int K, float alpha, float beta, __global const float* A,
                          __global const float* B, __global const float* C, __global float* out,
                          int comp, int tile, int fma_on) {
  __local float As[TS][TS];  /* As[k][m] */
  __local float Bs[TS][TS];  /* Bs[n][k] */
  const int li = get_local_id(0), lj = get_local_id(1);
  const int i = get_group_id(0) * TS + li, j = get_group_id(1) * TS + lj;
  float s = 0.0f, c = 0.0f, p = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TS) {
    As[lj][li] = (i < M && k0 + lj < K) ? A[i + (size_t)(k0 + lj) * M] : 0.0f;
    Bs[lj][li] = (k0 + li < K && j < N) ? B[(k0 + li) + (size_t)j * K] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int kmax = min(TS, K - k0);
    if (alpha != 0.0f) {
      for (int kk = 0; kk < kmax; ++kk) {
        const int k = k0 + kk;
        if (comp == 0) {
          s = mul_add(As[kk][li], Bs[lj][kk], s, fma_on);
        } else {
          p = mul_add(As[kk][li], Bs[lj][kk], p, fma_on);
          if ((k + 1) % tile == 0 || k + 1 == K) {
            comp_add(comp, &s, &c, p);
            p = 0.0f;
          }
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i >= M || j >= N) return;
  if (comp != 0 && alpha != 0.0f && !isfinite(s)) {  /* IEEE specials: recompute plainly */
    s = 0.0f;
    for (int k = 0; k < K; ++k) s = mul_add(A[i + (size_t)k * M], B[k + (size_t)j * K], s, fma_on);
  }
  const size_t o = i + (size_t)j * M;
  float r;
  if (alpha == 0.0f) r = beta == 0.0f ? 0.0f : beta * C[o];
  else if (beta == 0.0f) r = alpha * s;
  else {
    float bc = beta * C[o];
    if (fma_on) r = fma(alpha, s, bc);
    else { float as = alpha * s; r = as + bc; }
  }
  out[o] = r;
}
)CLC";

float data_float(const Params& data, const char* key, float def) {
  auto it = data.find(key);
  return it == data.end() ? def : std::strtof(it->second.c_str(), nullptr);
}

template <class T>
void arg(cl_kernel k, cl_uint i, const T& v) {
  ACCSUM_CL_CHECK(clSetKernelArg(k, i, sizeof(T), &v));
}

class ClGemm : public Kernel {
 public:
  ClGemm(const Problem& p, int comp, int tile, bool fma) : p_(p), comp_(comp), tile_(tile), fma_(fma) {
    Context& ctx = context();
    (void)ctx;
    const size_t na = static_cast<size_t>(p.rows * p.inner), nb = static_cast<size_t>(p.inner * p.cols),
                 nc = static_cast<size_t>(p.rows * p.cols);
    a_ = Buffer(std::max<size_t>(1, na) * 4, CL_MEM_READ_ONLY);
    b_ = Buffer(std::max<size_t>(1, nb) * 4, CL_MEM_READ_ONLY);
    c_ = Buffer(std::max<size_t>(1, nc) * 4, CL_MEM_READ_ONLY);
    out_ = Buffer(std::max<size_t>(1, nc) * 4);
    if (na) a_.write(p.a, na * 4);
    if (nb) b_.write(p.b, nb * 4);
    if (nc) c_.write(p.c, nc * 4);
    kernel_ = make_kernel(program(kGemmSource), "sgemm_tiled");
  }
  ~ClGemm() override { clReleaseKernel(kernel_); }
  void execute() override {
    if (p_.rows * p_.cols == 0) return;
    const int M = static_cast<int>(p_.rows), N = static_cast<int>(p_.cols), K = static_cast<int>(p_.inner);
    const float alpha = data_float(p_.data, "alpha", 1.0f), beta = data_float(p_.data, "beta", 0.0f);
    cl_mem a = a_.get(), b = b_.get(), c = c_.get(), o = out_.get();
    const int fma = fma_ ? 1 : 0;
    arg(kernel_, 0, M);
    arg(kernel_, 1, N);
    arg(kernel_, 2, K);
    arg(kernel_, 3, alpha);
    arg(kernel_, 4, beta);
    arg(kernel_, 5, a);
    arg(kernel_, 6, b);
    arg(kernel_, 7, c);
    arg(kernel_, 8, o);
    arg(kernel_, 9, comp_);
    arg(kernel_, 10, tile_);
    arg(kernel_, 11, fma);
    const size_t local[2] = {16, 16};
    const size_t global[2] = {static_cast<size_t>((M + 15) / 16 * 16), static_cast<size_t>((N + 15) / 16 * 16)};
    cl_event ev;
    ACCSUM_CL_CHECK(clEnqueueNDRangeKernel(context().queue, kernel_, 2, nullptr, global, local, 0, nullptr, &ev));
    ACCSUM_CL_CHECK(clWaitForEvents(1, &ev));
    last_ = event_span_seconds(ev, ev);
    clReleaseEvent(ev);
  }
  Result result() override {
    std::vector<float> h(static_cast<size_t>(p_.rows * p_.cols));
    if (!h.empty()) out_.read(h.data(), h.size() * 4);
    return Result{std::vector<double>(h.begin(), h.end())};
  }
  double last_device_seconds() const override { return last_; }

 private:
  Problem p_;
  int comp_, tile_;
  bool fma_;
  Buffer a_, b_, c_, out_;
  cl_kernel kernel_{};
  double last_ = -1;
};

template <int COMP>
std::unique_ptr<Kernel> make(const Problem& p, const Params& prm) {
  const int tile = prm.count("tile") ? static_cast<int>(param_int(prm, "tile")) : 1;
  return std::make_unique<ClGemm>(p, COMP, tile, param_int(prm, "fma") != 0);
}

Registrar reg_sgemm(AlgoEntry("gemm", "sgemm", "opencl", "tiled float GEMM (16x16 work-groups), plain summation")
                        .promises_reproducible()
                        .with_params({gemm::fma_param()})
                        .maker(make<0>));
Registrar reg_kahan(AlgoEntry("gemm", "sgemm-kahan", "opencl", "tiled float GEMM, selective Kahan summation per strip")
                        .promises_reproducible()
                        .with_params({gemm::tile_param(), gemm::fma_param()})
                        .maker(make<1>));
Registrar reg_dcs(AlgoEntry("gemm", "sgemm-dcs", "opencl", "tiled float GEMM, selective doubly compensated summation")
                      .promises_reproducible()
                      .with_params({gemm::tile_param(), gemm::fma_param()})
                      .maker(make<2>));

}  // namespace
}  // namespace accsum::opencl
