#include "backends/mpi/same_args.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/frame/registry.hpp"

namespace accsum::mpi {
namespace {

// FNV-1a of the process's argv (NUL-separated), or of nothing where /proc is not there.
uint64_t command_line_hash() {
  uint64_t h = 0xcbf29ce484222325ull;
  if (FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
    int c;
    while ((c = std::fgetc(f)) != EOF) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    std::fclose(f);
  }
  return h;
}

}  // namespace

void check_same_arguments() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) return;
  uint64_t mine = command_line_hash(), root = mine;
  MPI_Bcast(&root, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  int differs = mine != root, any = 0;
  MPI_Allreduce(&differs, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any) throw UsageError("the MPI ranks were given different arguments (every rank must run the same command line)");
}

}  // namespace accsum::mpi
