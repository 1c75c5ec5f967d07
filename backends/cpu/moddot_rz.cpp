// Round-toward-zero kernels of Jean, Graillat, "A parallel algorithm for dot product over
// word-size finite field using floating-point arithmetic", SYNASC 2010. This translation unit
// is compiled with -frounding-math (CMakeLists.txt): the compiler may then neither fold
// floating-point constants nor assume round-to-nearest. The kernels themselves are noinline
// functions called between fesetround calls, so none of their operations can be moved across
// the change of mode; everything they return is an exact integer (exact in any mode).
#include "backends/cpu/moddot_rz.hpp"

#include <cfenv>
#include <stdexcept>

#include "families/moddot/moddot.hpp"

namespace accsum::moddot {
namespace {

// Sets FE_TOWARDZERO for its lifetime; the destructor restores the caller's mode on every
// exit path.
class RoundTowardZero {
 public:
  RoundTowardZero() : saved_(std::fegetround()) {
    if (std::fesetround(FE_TOWARDZERO) != 0) throw std::runtime_error("fesetround(FE_TOWARDZERO) failed");
  }
  ~RoundTowardZero() { std::fesetround(saved_); }
  RoundTowardZero(const RoundTowardZero&) = delete;
  RoundTowardZero& operator=(const RoundTowardZero&) = delete;

 private:
  int saved_;
};

// ExtractScalar (the paper's Algorithm 2) in round-toward-zero: for a in N, sigma = 2^k >= a,
// a = x + y with x in 2^(k-52) N and 0 <= y < 2^(k-52) (Theorem 2).
inline void extract(double sigma, double a, double& x, double& y) {
  double q = sigma + a;
  x = q - sigma;
  y = a - x;
}

struct Sums {
  double a, b, c, d;
};

// Algorithm 3 on one block of n <= 2^26 elements, literally (M = 53, s1 = 26, s2 = 27: the
// ExtractScalar parameters are 2^(s5-1) = 2^131, 2^(s4-1) = 2^105, 2^(s3-1) = 2^78, cutting at
// 2^79, 2^53, 2^26). In units of 2^79, 2^53, 2^26, 1 the four pieces are integers below 2^25,
// 2^26, 2^27, 2^27 (gamma = gamma' + eps < 2^53 in case 1 since gamma' < ulp(h) and eps is a
// multiple of ulp(h); delta = r + eps < 2^27 in case 2, r < ulp(h) <= 2^26), so sums of at
// most 2^26 of them stay below 2^53 units: exact. Returns the four exact sums.
__attribute__((noinline)) Sums abgd_block_rz(const double* x, const double* y, int64_t n) {
  const double s5 = 0x1p131, s4 = 0x1p105, s3 = 0x1p78;
  double A = 0, B = 0, C = 0, D = 0;
  for (int64_t i = 0; i < n; ++i) {
    double h = x[i] * y[i];  // TwoProduct (Algorithm 1): a b = h + r, 0 <= r
    double r = std::fma(x[i], y[i], -h);
    double al, be, ga, de, ep;
    extract(s5, h, al, be);
    if (al == 0) {
      if (be == 0) {  // h = 0
        extract(s3, h, ga, de);
      } else {
        extract(s4, h, be, ga);
        extract(s3, ga, ga, ep);
        de = r + ep;
      }
    } else {
      extract(s4, be, be, ep);
      extract(s3, r, ga, de);
      ga = ga + ep;
    }
    A += al;
    B += be;
    C += ga;
    D += de;
  }
  return {A, B, C, D};
}

// The lambda-algorithm (Theorem 3): TwoProduct, then h cut at 2^(l+1) by
// ExtractScalar(2^(l+53), h) (2^l <= p - 1 < 2^(l+1)); the pieces alpha / 2^(l+1), beta, r are
// integers in [0, 2^(l+1)) with 2^(l+1) <= 2p - 2, so one conditional subtraction of p makes
// each a field element (the paper subtracts 2^l instead and adds a counted correction; both
// leave pieces <= p - 1; accsum_modp_to_field's other correction, for negative pieces, never
// applies here). Since lambda (p - 1) < 2^52, each chunk sum of lambda pieces is exact; one
// reduction per chunk and accumulator. These are the operations of lambda_rn
// (families/moddot/moddot.hpp), here under FE_TOWARDZERO. Returns the residue.
__attribute__((noinline)) double lambda_body_rz(const double* x, const double* y, int64_t n, uint64_t p) {
  return static_cast<double>(lambda_rn(x, y, n, p));
}

// The same four sums without the case analysis, in AVX2 lanes (the sliced kernel of
// cpu-mt and mpi; tested bit for bit against Algorithm 3 above and GMP). In round-toward-zero, with
// [alpha, beta'] = ExtractScalar(2^131, h) and [beta, eps] = ExtractScalar(2^105, beta'):
// eps = h mod 2^53 is a multiple of ulp(h) below 2^53, so eps <= 2^53 - ulp(h), and
// 0 <= r < ulp(h) (Theorem 1); hence t = eps + r < 2^53 is an integer, computed exactly, and
// [gamma, delta] = ExtractScalar(2^78, t) gives gamma < 2^53 (in 2^26 N), delta < 2^26. In
// units of 2^79, 2^53, 2^26, 1 the pieces are below 2^25, 2^26, 2^27, 2^26: 2^26 of them sum
// exactly, in any order (lanes included).
__attribute__((noinline)) Sums abgd_block_rz_lanes(const double* x, const double* y, int64_t n) {
  AbgdSums s = abgd_block_simd(x, y, n, 0x1p78);  // families/moddot/moddot.hpp, here under FE_TOWARDZERO
  return {s.a, s.b, s.c, s.d};
}

// Algorithm 3 over any n: blocks of `block` <= 2^26, the four sums reduced (fmod, exact)
// between blocks.
template <Sums (*Block)(const double*, const double*, int64_t)>
__attribute__((noinline)) double abgd_body_rz(const double* x, const double* y, int64_t n, uint64_t p, int64_t block) {
  const accsum_modp m = accsum_modp_init(p);
  double acc = 0;
  for (int64_t b = 0; b < n; b += block) {
    Sums s = Block(x + b, y + b, std::min(block, n - b));
    acc = accsum_modp_add(acc, accsum_abgd_residue(s.a, s.b, s.c, s.d, m), m);
  }
  return acc;
}

// families/moddot/moddot.hpp's lambda_simd, here under FE_TOWARDZERO (noinline: nothing moves across
// the change of mode).
__attribute__((noinline)) uint64_t lambda_simd_rz(const double* x, const double* y, int64_t n, uint64_t p) {
  return lambda_simd(x, y, n, p);
}

}  // namespace

uint64_t abgd_rz(const double* x, const double* y, int64_t n, uint64_t p, int64_t block) {
  double r;
  {
    RoundTowardZero rz;
    r = abgd_body_rz<abgd_block_rz>(x, y, n, p, block);
  }
  return static_cast<uint64_t>(r);
}

uint64_t abgd_rz_lanes(const double* x, const double* y, int64_t n, uint64_t p, int64_t block) {
  double r;
  {
    RoundTowardZero rz;
    r = abgd_body_rz<abgd_block_rz_lanes>(x, y, n, p, block);
  }
  return static_cast<uint64_t>(r);
}

uint64_t lambda_rz_lanes(const double* x, const double* y, int64_t n, uint64_t p) {
  uint64_t r;
  {
    RoundTowardZero rz;
    r = lambda_simd_rz(x, y, n, p);
  }
  return r;
}

uint64_t lambda_rz(const double* x, const double* y, int64_t n, uint64_t p) {
  double r;
  {
    RoundTowardZero rz;
    r = lambda_body_rz(x, y, n, p);
  }
  return static_cast<uint64_t>(r);
}

}  // namespace accsum::moddot
