// mpi versions of every cpu algorithm that has a mergeable state (core/frame/mergeable.hpp): every
// rank holds the whole input and accumulates its slice [n r / P, n (r+1) / P); the serialised
// states are gathered on every rank and merged in rank order, so every rank finalizes the same
// bits for any rank count. Algorithms with a hand-written mpi kernel (superacc: MPI_Allreduce
// over the digits) replace these.
#include <mpi.h>

#include "backends/mpi/mpi_env.hpp"
#include "core/frame/mergeable.hpp"

namespace accsum::mpi {
namespace {

// Every rank's serialised state, in rank order.
std::vector<std::vector<unsigned char>> gather_states(const std::vector<unsigned char>& mine) {
  std::vector<std::vector<unsigned char>> out;
  for (auto& s : all_gather(std::string(mine.begin(), mine.end()))) out.emplace_back(s.begin(), s.end());
  return out;
}

class ComposedMpi : public Kernel {
 public:
  ComposedMpi(MergeableFactory make, Params params, const Problem& p)
      : make_(std::move(make)), params_(std::move(params)), p_(p) {
    ensure_started();
    placement_ = rank_placements("cpu");
  }
  std::vector<std::string> placement() const override { return placement_; }
  void execute() override {
    const int r = rank(), ranks = size();
    int64_t b = static_cast<int64_t>(static_cast<__int128>(p_.n) * r / ranks);
    int64_t e = static_cast<int64_t>(static_cast<__int128>(p_.n) * (r + 1) / ranks);
    auto mine = make_(params_);
    mine->accumulate(p_.vector_slice(b, e, p_.id));
    auto all = gather_states(mine->serialize());
    total_ = make_(params_);
    total_->deserialize(all[0]);
    for (int i = 1; i < ranks; ++i) {
      auto s = make_(params_);
      s->deserialize(all[i]);
      total_->merge(*s);
    }
  }
  Result result() override { return total_->finalize(); }

 private:
  MergeableFactory make_;
  Params params_;
  Problem p_;
  std::unique_ptr<MergeableState> total_;
  std::vector<std::string> placement_;
};

bool compose(const AlgoEntry& from, AlgoEntry& twin) {
  if (from.backend != "cpu" || !from.state) return false;
  twin = from;
  twin.backend = "mpi";
  twin.summary = from.summary + " [MPI ranks: states gathered and merged in rank order]";
  twin.is_baseline = from.is_baseline;  // the baseline of the cpu backend stays the baseline (e.g. the GMP loop)
  MergeableFactory make = from.state;
  twin.make = [make](const Problem& p, const Params& q) -> std::unique_ptr<Kernel> {
    return std::make_unique<ComposedMpi>(make, q, p);
  };
  return true;
}

Registrar reg(Composer{compose});

}  // namespace
}  // namespace accsum::mpi
