#pragma once
// Device level: the last block to finish sums the G block records digit by digit and rounds
// with core's BasicSuperacc::round(); the host receives one double (Collange, Defour, Graillat,
// Iakymchuk, Parallel Computing 2015, Sec. 3.3, levels 4-5). The usual fence-and-count pattern
// picks the last block, as CUB's single-pass reductions do without a second launch.
#include <cuda_runtime.h>

#include "backends/cuda/superacc_lanes.cuh"
#include "core/superacc.hpp"

namespace accsum::cuda {

// True in every thread of the last block to arrive (each block's record is visible device-wide
// before its count is). The last block resets the counter for the next launch with
// reset_block_counter() once it is done.
__device__ __forceinline__ bool last_block_done(unsigned* done) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (last) __threadfence();
  return last;
}
__device__ __forceinline__ void reset_block_counter(unsigned* done) {
  if (threadIdx.x == 0) *done = 0;
}

// The G records summed digit by digit and rounded. Record digits may be anything below 2^63 in
// magnitude: each is summed as its low 32 bits and its high part (DigitSum), so that G < 2^31
// records cannot overflow. Thread t sums digit t % D of every (threads / D)-th record:
// consecutive threads read consecutive digits, many loads in flight. `scratch` is shared memory
// the block no longer needs (finish_scratch_bytes).
template <class R>
__device__ __noinline__ void finish_records(const R* records, int blocks, int64_t n, double* out, unsigned char* scratch) {
  constexpr int D = R::kDigits;
  const int groups = blockDim.x >= D ? static_cast<int>(blockDim.x) / D : 1;
  R& acc = *reinterpret_cast<R*>(scratch);
  DigitSum* part = reinterpret_cast<DigitSum*>(scratch + sizeof(R));  // [groups][D]
  unsigned* flags = reinterpret_cast<unsigned*>(part + groups * D);
  if (threadIdx.x == 0) *flags = 0;
  for (int i = threadIdx.x; i < groups * D; i += blockDim.x) {
    const int g = i / D, j = i % D;
    DigitSum s{};
#pragma unroll 8
    for (int b = g; b < blocks; b += groups) s.add(__ldcg(reinterpret_cast<const long long*>(&records[b].digit[j])));
    part[i] = s;
  }
  unsigned f = 0;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) {
    R r;  // the counters only
    r.nan_count = __ldcg(reinterpret_cast<const long long*>(&records[b].nan_count));
    r.pos_inf_count = __ldcg(reinterpret_cast<const long long*>(&records[b].pos_inf_count));
    r.neg_inf_count = __ldcg(reinterpret_cast<const long long*>(&records[b].neg_inf_count));
    r.not_neg_zero_count = __ldcg(reinterpret_cast<const long long*>(&records[b].not_neg_zero_count));
    f |= record_flags(r);
  }
  __syncthreads();
  atomicOr(flags, f);
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    DigitSum here{}, below{};
    for (int q = 0; q < groups; ++q) {
      here.low += part[q * D + d].low;
      here.high += part[q * D + d].high;
      if (d > 0) below.high += part[q * D + d - 1].high;
    }
    acc.digit[d] = merged_digit<D>(d, here, &below);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    set_flags(acc, *flags, n);
    *out = acc.round();
  }
}

// Bytes of shared memory finish_records needs for a block of `block` threads.
template <class R>
constexpr size_t finish_scratch_bytes(int block) {
  const int groups = block >= R::kDigits ? block / R::kDigits : 1;
  return sizeof(R) + sizeof(DigitSum) * groups * R::kDigits + 16;
}

}  // namespace accsum::cuda
