#include "backends/mpi/mpi_env.hpp"
#include "backends/mpi/same_args.hpp"

#include <mpi.h>

#include <cstdlib>
#include <mutex>

namespace accsum::mpi {
namespace {

void finalize_at_exit() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Finalize();
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
  static std::once_flag args_once;  // outside the first once: its exception must not retry MPI_Init
  std::call_once(args_once, check_same_arguments);
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

std::string library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string v(buf, len);
  auto cut = v.find_first_of(",\n");
  return cut == std::string::npos ? v : v.substr(0, cut);
}

}  // namespace accsum::mpi
