// mpi versions of every cpu algorithm that has a mergeable state (core/mergeable.hpp): every
// rank holds the whole input and accumulates its slice [n r / P, n (r+1) / P); the serialised
// states are gathered on every rank and merged in rank order, so every rank finalizes the same
// bits for any rank count. Algorithms with a hand-written mpi kernel (superacc: MPI_Allreduce
// over the digits) replace these.
#include <mpi.h>

#include "backends/mpi/mpi_env.hpp"
#include "core/mergeable.hpp"

namespace accsum::mpi {
namespace {

// Every rank's serialised state, in rank order.
std::vector<std::vector<unsigned char>> gather_states(const std::vector<unsigned char>& mine) {
  const int ranks = size();
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(ranks), offsets(ranks);
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[r] = total;
    total += lens[r];
  }
  std::vector<unsigned char> all(total);
  MPI_Allgatherv(mine.data(), len, MPI_BYTE, all.data(), lens.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD);
  std::vector<std::vector<unsigned char>> out;
  for (int r = 0; r < ranks; ++r) out.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + lens[r]);
  return out;
}

class ComposedMpi : public Kernel {
 public:
  ComposedMpi(MergeableFactory make, Params params, const Problem& p)
      : make_(std::move(make)), params_(std::move(params)), p_(p) {
    ensure_started();
  }
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
};

bool compose(const AlgoEntry& from, AlgoEntry& twin) {
  if (from.backend != "cpu" || !from.state) return false;
  twin = from;
  twin.backend = "mpi";
  twin.summary = from.summary + " [MPI ranks: states gathered and merged in rank order]";
  twin.is_baseline = false;
  MergeableFactory make = from.state;
  twin.make = [make](const Problem& p, const Params& q) -> std::unique_ptr<Kernel> {
    return std::make_unique<ComposedMpi>(make, q, p);
  };
  return true;
}

Registrar reg(Composer{compose});

}  // namespace
}  // namespace accsum::mpi
