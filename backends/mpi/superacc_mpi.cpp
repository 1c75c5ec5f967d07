// The mpi backend (Collange, Defour, Graillat, Iakymchuk 2015, levels 4-5 across processes): every rank holds the whole
// input and accumulates the slice [n r / P, n (r+1) / P) exactly with an inner backend (`inner`: cpu, cpu-mt, or any
// backend whose superacc entry has a mergeable state); the unrounded superaccumulators are combined by MPI_Allreduce
// with a user-defined, commutative MPI_Op over the digit array (integer additions: exact), and every rank rounds the
// same total. The result is therefore identical for any rank count and equal to the cpu backend's.
#include <mpi.h>

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "families/sum_dot/superacc_host.hpp"
#include "core/frame/parallel.hpp"
#include "backends/mpi/mpi_env.hpp"
#include "core/numerics/eft.hpp"
#include "core/numerics/superacc.hpp"
#include "families/sum_dot/superacc_state.hpp"
#include "datasets/dataset.hpp"

namespace accsum::mpi {
namespace {

// A superaccumulator as one MPI element (all its fields are int64) and the merge as MPI_Op.
template <class SA>
struct MpiSuperacc {
  static_assert(std::is_trivially_copyable_v<SA> && sizeof(SA) % sizeof(int64_t) == 0);
  static void merge_op(void* in, void* inout, int* len, MPI_Datatype*) {
    for (int i = 0; i < *len; ++i) {
      SA a, b;  // copies: MPI's buffers need not be aligned for SA
      std::memcpy(&a, static_cast<const char*>(in) + i * sizeof(SA), sizeof(SA));
      std::memcpy(&b, static_cast<char*>(inout) + i * sizeof(SA), sizeof(SA));
      b.merge(a);
      std::memcpy(static_cast<char*>(inout) + i * sizeof(SA), &b, sizeof(SA));
    }
  }
  static MPI_Datatype type() {
    static MPI_Datatype t = [] {
      MPI_Datatype d;
      MPI_Type_contiguous(static_cast<int>(sizeof(SA) / sizeof(int64_t)), MPI_INT64_T, &d);
      MPI_Type_commit(&d);
      return d;
    }();
    return t;
  }
  static MPI_Op op() {
    static MPI_Op o = [] {
      MPI_Op h;
      MPI_Op_create(&merge_op, /*commute=*/1, &h);
      return h;
    }();
    return o;
  }
};

// A run's figures: this rank's own accumulation and its wait in the combine (MPI_Allreduce, which
// includes waiting for the slowest rank), so a report shows what share the merge costs.
template <class SA>
class SuperaccMpi : public Kernel {
 public:
  SuperaccMpi(const Problem& p, const Params& q) {
    const std::string& inner = param_str(q, "inner");
    const AlgoEntry* in = registry().find(kDot ? "superacc-dot" : "superacc", inner);
    if (!in || !in->state)
      throw UsageError("mpi: inner=" + inner + " is not available (its superacc entry has no mergeable state)");
    ensure_started();  // first: the inner backend binds its device by the node-local rank
    require_backend(inner);
    const int r = rank(), ranks = size();
    // 128-bit products: n * r must not overflow for any 64-bit n.
    int64_t b = static_cast<int64_t>(static_cast<__int128>(p.n) * r / ranks);
    int64_t e = static_cast<int64_t>(static_cast<__int128>(p.n) * (r + 1) / ranks);
    Problem slice = p.vector_slice(b, e, p.id ^ (0x9E3779B97F4A7C15ull * uint64_t(r + 1)));
    if (slice.generated && !in->makes_own_data) slice = hold_slice(slice);
    slice_ = slice;
    state_ = in->state(inner_params(*in, q));
    empty_ = state_->serialize();
    placement_ = rank_placements(inner);
  }
  std::vector<std::string> placement() const override { return placement_; }
  // A slice described by index, made in this rank's host memory for an inner backend that
  // reads host arrays: each rank holds n / P elements, never the whole input.
  Problem hold_slice(Problem s) {
    const bool dot = kDot;
    x_.resize(static_cast<size_t>(s.n));
    y_.resize(dot ? x_.size() : 0);
    generate_range_threaded(*s.generated, s.first, s.first + s.n, x_.data(), dot ? y_.data() : nullptr);
    s.x = x_.data();
    s.y = dot ? y_.data() : nullptr;
    s.generated = nullptr;
    return s;
  }
  void execute() override {
    SA local, total;
    const double t0 = MPI_Wtime();
    state_->deserialize(empty_);  // keeps what the inner backend prepared (a device's copy of the slice)
    state_->accumulate(slice_);
    const std::vector<unsigned char> bytes = state_->serialize();  // the SA itself (SuperaccState)
    if (bytes.size() != sizeof local) throw std::logic_error("mpi: inner state is not a superaccumulator");
    std::memcpy(&local, bytes.data(), sizeof local);
    local.normalize();  // every digit < 2^32: any number of ranks merges without overflow
    const double t1 = MPI_Wtime();
    MPI_Allreduce(&local, &total, 1, MpiSuperacc<SA>::type(), MpiSuperacc<SA>::op(), MPI_COMM_WORLD);
    value_ = total.round();
    local_s_ = t1 - t0;
    combine_s_ = MPI_Wtime() - t1;
  }
  Result result() override {
    Result r = Result::scalar(value_);
    r.figures = {{"mpi_local_s", local_s_},
                 {"mpi_combine_s", combine_s_},
                 {"mpi_combine_share", combine_s_ / (local_s_ + combine_s_)}};
    return r;
  }

 private:
  std::vector<double> x_, y_;  // this rank's slice, when held on the host
  // The inner entry's parameters: those of the mpi entry's that it also has, defaults for the rest.
  static Params inner_params(const AlgoEntry& in, const Params& q) {
    Params user;
    for (auto& spec : in.params)
      if (q.count(spec.name)) user[spec.name] = q.at(spec.name);
    return registry().resolve_params(in, user);
  }
  static constexpr bool kDot = std::is_same_v<SA, SuperaccDot>;
  Problem slice_;
  std::unique_ptr<MergeableState> state_;
  std::vector<unsigned char> empty_;  // the state as made: every run starts from it
  std::vector<std::string> placement_;
  double value_ = 0, local_s_ = 0, combine_s_ = 0;
};

std::vector<ParamSpec> params() {
  std::vector<std::string> inners;  // every other backend (one whose superacc entry has no state is refused when run)
  for (auto& b : compiled_backends())
    if (b != "mpi") inners.push_back(b);
  std::vector<ParamSpec> ps = {ParamSpec{"inner", "backend each rank sums its slice with", false, 0, 0, inners, "cpu"},
                               threads_param()};
  for (auto& s : cpu::superacc_params(0, 0)) ps.push_back(s);
  return ps;
}

// Inner backends and thread counts that must give the same bits (the rank count is fixed by
// mpirun; CTest runs the same checks with 1, 2 and 4 ranks).
std::vector<Params> inner_variants(const Params& p) {
  std::vector<Params> out = variants_of(with_param(p, "inner", "cpu-mt"), "threads", {"1", "2", "3"});
  out.push_back(with_param(p, "inner", "cpu"));
  return out;
}

Registrar reg_backend(BackendInfo{
    "mpi", "MPI ranks, each summing a slice with an inner backend; superaccumulators merged by MPI_Allreduce",
    [] { return true; }, [] { return eft_self_test(); },
    [] {
      // Reports describe the machine after the run: ranks once an mpi row started MPI. Each
      // rank's device is in the rows' placement and the report's machine.devices.
      return library_version() + (started() ? ", " + std::to_string(size()) + (size() == 1 ? " rank" : " ranks")
                                            : " (MPI not initialised: no mpi row ran)");
    }}.ranked_for_best(4)
                          .spans_processes());

template <bool DOT>
AlgoEntry superacc_mpi(const std::string& summary) {
  return superacc_entry(DOT, "mpi", summary, params(), make_kernel_of<SuperaccMpi<SuperaccOf<DOT>>>)
      .shapes(inner_variants)
      .generates_by_index();
}

Registrar reg_sum(superacc_mpi<false>("correctly rounded sum over MPI ranks (slices merged exactly by MPI_Allreduce)"));
Registrar reg_dot(superacc_mpi<true>("correctly rounded dot over MPI ranks (slices merged exactly by MPI_Allreduce)"));

}  // namespace
}  // namespace accsum::mpi
