#include "backends/cuda/int8_gemm.cuh"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace accsum::cuda {
namespace {

constexpr int kCandidates = 16;                     // cuBLASLt heuristic results timed per shape
constexpr int kTimedRuns = 2;                       // runs per candidate after one untimed run (the best is kept)
constexpr size_t kMaxWorkspace = size_t{64} << 20;  // bytes a candidate may ask for

void check_lt(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed (cuBLASLt status " + std::to_string(s) + ")");
}

// The descriptors of one shape (RAII).
struct Descriptors {
  cublasLtMatmulDesc_t op{};
  cublasLtMatrixLayout_t a{}, b{}, c{};
  explicit Descriptors(const Int8GemmShape& s) {
    check_lt(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32I, CUDA_R_32I), "cublasLtMatmulDescCreate");
    const cublasOperation_t transpose = CUBLAS_OP_T, plain = CUBLAS_OP_N;
    check_lt(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose), "TRANSA");
    check_lt(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &plain, sizeof plain), "TRANSB");
    check_lt(cublasLtMatrixLayoutCreate(&a, CUDA_R_8I, s.k, s.m, s.lda), "layout A");
    check_lt(cublasLtMatrixLayoutCreate(&b, CUDA_R_8I, s.k, s.n, s.ldb), "layout B");
    check_lt(cublasLtMatrixLayoutCreate(&c, CUDA_R_32I, s.m, s.n, s.ldc), "layout C");
    if (s.batch > 1) {
      batched(a, s.batch, s.stride_a);
      batched(b, s.batch, s.stride_b);
      batched(c, s.batch, s.stride_c);
    }
  }
  static void batched(cublasLtMatrixLayout_t l, int count, int64_t stride) {
    check_lt(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count), "batch");
    check_lt(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
             "batch stride");
  }
  ~Descriptors() {
    cublasLtMatrixLayoutDestroy(c);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatmulDescDestroy(op);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
};

using Tuned = Int8Gemm::Choice;
// Process-wide: one choice per device and shape.
std::mutex tuned_mutex;
std::map<std::pair<int, Int8GemmShape>, Tuned> tuned_shapes;

// The tuning's events: the start of the whole and of one run, and their end.
struct TuningClock {
  cudaEvent_t whole{}, begin{}, end{};
  TuningClock() {
    for (cudaEvent_t* e : {&whole, &begin, &end}) ACCSUM_CUDA_CHECK(cudaEventCreate(e));
  }
  ~TuningClock() {
    for (cudaEvent_t e : {whole, begin, end}) cudaEventDestroy(e);
  }
  TuningClock(const TuningClock&) = delete;
  TuningClock& operator=(const TuningClock&) = delete;
  float elapsed_ms(cudaEvent_t from) {
    ACCSUM_CUDA_CHECK(cudaEventRecord(end));
    ACCSUM_CUDA_CHECK(cudaEventSynchronize(end));
    float ms = 0;
    ACCSUM_CUDA_CHECK(cudaEventElapsedTime(&ms, from, end));
    return ms;
  }
};

int current_device() {
  int d = 0;
  ACCSUM_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

// The choice of a shape on this device, if tuned.
bool tuned_choice(const Int8GemmShape& s, Tuned* out) {
  std::lock_guard<std::mutex> lock(tuned_mutex);
  const auto it = tuned_shapes.find(std::make_pair(current_device(), s));
  if (it == tuned_shapes.end()) return false;
  if (out) *out = it->second;
  return true;
}

// One product of a batch's shape.
Int8GemmShape single_of(const Int8GemmShape& s) {
  Int8GemmShape one = s;
  one.batch = 1;
  one.stride_a = one.stride_b = one.stride_c = 0;
  return one;
}

}  // namespace

bool Int8GemmShape::operator<(const Int8GemmShape& o) const {
  return std::tie(m, n, k, lda, ldb, ldc, accumulate, batch, stride_a, stride_b, stride_c) <
         std::tie(o.m, o.n, o.k, o.lda, o.ldb, o.ldc, o.accumulate, o.batch, o.stride_a, o.stride_b, o.stride_c);
}

Int8Gemm::Int8Gemm() { check_lt(cublasLtCreate(&lt_), "cublasLtCreate"); }
Int8Gemm::~Int8Gemm() { cublasLtDestroy(lt_); }

// The fastest of cuBLASLt's heuristic candidates for one shape, each timed kTimedRuns times after one untimed run.
Int8Gemm::Choice Int8Gemm::fastest(const Int8GemmShape& s, const int8_t* a, const int8_t* b, int32_t* c) {
  Descriptors d(s);
  cublasLtMatmulPreference_t pref{};
  check_lt(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
  check_lt(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kMaxWorkspace,
                                                sizeof kMaxWorkspace),
           "workspace preference");
  cublasLtMatmulHeuristicResult_t found[kCandidates];
  int count = 0;
  const cublasStatus_t h =
      cublasLtMatmulAlgoGetHeuristic(lt_, d.op, d.a, d.b, d.c, d.c, pref, kCandidates, found, &count);
  cublasLtMatmulPreferenceDestroy(pref);
  check_lt(h, "cublasLtMatmulAlgoGetHeuristic");
  if (count == 0) throw std::runtime_error("cuBLASLt has no int8 GEMM algorithm for this shape");

  size_t biggest = 0;
  for (int i = 0; i < count; ++i) biggest = std::max(biggest, found[i].workspaceSize);
  if (workspace_.size() < biggest) workspace_ = DeviceBuffer<char>(biggest);
  const int32_t one = 1, zero = 0;
  TuningClock t;
  float best_ms = 0;
  int best = -1;
  for (int i = 0; i < count; ++i) {
    float quickest = -1;
    for (int r = 0; r <= kTimedRuns; ++r) {
      ACCSUM_CUDA_CHECK(cudaEventRecord(t.begin));
      if (cublasLtMatmul(lt_, d.op, &one, a, d.a, b, d.b, s.accumulate ? &one : &zero, c, d.c, c, d.c, &found[i].algo,
                         workspace_.get(), found[i].workspaceSize, nullptr) != CUBLAS_STATUS_SUCCESS)
        break;  // a candidate that does not run is not chosen
      const float ms = t.elapsed_ms(t.begin);
      if (r > 0 && (quickest < 0 || ms < quickest)) quickest = ms;
    }
    if (quickest >= 0 && (best < 0 || quickest < best_ms)) best_ms = quickest, best = i;
  }
  if (best < 0) throw std::runtime_error("no cuBLASLt int8 GEMM candidate ran for this shape");
  return Tuned{found[best].algo, found[best].workspaceSize, best_ms, false};
}

double Int8Gemm::tune(const Int8GemmShape& s, const int8_t* a, const int8_t* b, int32_t* c) {
  if (tuned_choice(s, nullptr)) return 0.0;
  TuningClock t;
  ACCSUM_CUDA_CHECK(cudaEventRecord(t.whole));
  Tuned choice = fastest(s, a, b, c);
  if (s.batch > 1) {  // one launch against `batch` launches of the single shape: whichever is faster here
    const Int8GemmShape one = single_of(s);
    Tuned single{};
    if (!tuned_choice(one, &single)) {
      single = fastest(one, a, b, c);
      std::lock_guard<std::mutex> lock(tuned_mutex);
      tuned_shapes[std::make_pair(current_device(), one)] = single;
    }
    if (single.ms * s.batch < choice.ms) choice = Tuned{single.algo, single.workspace, single.ms * s.batch, true};
  }
  const double seconds = t.elapsed_ms(t.whole) * 1e-3;
  std::lock_guard<std::mutex> lock(tuned_mutex);
  tuned_shapes[std::make_pair(current_device(), s)] = choice;
  return seconds;
}

bool Int8Gemm::tuned(const Int8GemmShape& s) const { return tuned_choice(s, nullptr); }

int Int8Gemm::launches(const Int8GemmShape& s) const {
  Tuned t{};
  return tuned_choice(s, &t) && t.split ? s.batch : 1;
}

void Int8Gemm::run(const Int8GemmShape& s, const int8_t* a, const int8_t* b, int32_t* c) {
  Tuned t{};
  if (!tuned_choice(s, &t)) throw std::logic_error("Int8Gemm::run before tune for this shape");
  if (workspace_.size() < t.workspace) workspace_ = DeviceBuffer<char>(t.workspace);  // tuned by another instance
  Descriptors d(t.split ? single_of(s) : s);
  const int32_t one_i = 1, zero = 0;
  for (int i = 0; i < (t.split ? s.batch : 1); ++i)
    check_lt(cublasLtMatmul(lt_, d.op, &one_i, a + i * s.stride_a, d.a, b + i * s.stride_b, d.b,
                            s.accumulate ? &one_i : &zero, c + i * s.stride_c, d.c, c + i * s.stride_c, d.c, &t.algo,
                            workspace_.get(), t.workspace, nullptr),
             "cublasLtMatmul (int8)");
}

}  // namespace accsum::cuda
