#pragma once
// Every rank of an mpirun must run the same command: rank 0 broadcasts a hash of its command
// line (/proc/self/cmdline) and every rank compares it with its own. Called once, right after
// MPI starts (ensure_started); all ranks then throw the same UsageError when any one differs.
namespace accsum::mpi {

void check_same_arguments();

}  // namespace accsum::mpi
