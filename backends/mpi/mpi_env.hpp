#pragma once
// MPI for the mpi backend: started lazily, the first time the backend computes something
// (MPI_Init_thread, funneled: only the calling thread talks to MPI), finished at exit. Running
// accsum without mpirun works: MPI then starts as a singleton (one rank).
#include <string>
#include <vector>

namespace accsum::mpi {

void ensure_started();  // MPI_Init once (unless the program already did), MPI_Finalize at exit
bool started();         // MPI is initialized and not finalized
int rank();             // 0 when MPI is not started
int size();             // 1 when MPI is not started
std::string library_version();
// Every rank's bytes, in rank order, on every rank (collective: all ranks call it together).
std::vector<std::string> all_gather(const std::string& mine);
// One line per rank, in rank order: "rank r on <host>: <inner> <device it bound>" (collective).
std::vector<std::string> rank_placements(const std::string& inner);  // callable before MPI_Init

}  // namespace accsum::mpi
