#include "backends/mpi/mpi_env.hpp"
#include "backends/mpi/same_args.hpp"

#include <mpi.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "core/frame/placement.hpp"

namespace accsum::mpi {
namespace {

void finalize_at_exit() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Finalize();
}

// The node-local rank picks this process's GPU (core/frame/placement.hpp).
void publish_node_local_rank() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank(), MPI_INFO_NULL, &node);
  int r = 0, s = 1;
  MPI_Comm_rank(node, &r);
  MPI_Comm_size(node, &s);
  MPI_Comm_free(&node);
  placement::set_node_local_rank(r, s);
  placement::set_gather(all_gather);
}

}  // namespace

void ensure_started() {
  static std::once_flag once;
  std::call_once(once, [] {
    int init = 0;
    MPI_Initialized(&init);
    if (init) return;  // the program started MPI itself and will finish it
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit(finalize_at_exit);
  });
  static std::once_flag node_once;
  std::call_once(node_once, publish_node_local_rank);
  static std::once_flag args_once;  // outside the first once: its exception must not retry MPI_Init
  std::call_once(args_once, check_same_arguments);
}

// Every rank's string, in rank order, on every rank (lengths first, then the bytes).
std::vector<std::string> all_gather(const std::string& mine) {
  const int ranks = size();
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(ranks), offsets(ranks);
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[r] = total;
    total += lens[r];
  }
  std::string bytes(static_cast<size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), len, MPI_BYTE, bytes.data(), lens.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (int r = 0; r < ranks; ++r) out.push_back(bytes.substr(offsets[r], lens[r]));
  return out;
}

bool started() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

int rank() {
  if (!started()) return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  if (!started()) return 1;
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

std::vector<std::string> rank_placements(const std::string& inner) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  const std::string device = placement::recorded(inner);
  return all_gather("rank " + std::to_string(rank()) + " on " + std::string(host, len) + ": " + inner +
                    (device.empty() ? "" : " " + device));
}

std::string library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string v(buf, len);
  auto cut = v.find_first_of(",\n");
  return cut == std::string::npos ? v : v.substr(0, cut);
}

}  // namespace accsum::mpi
