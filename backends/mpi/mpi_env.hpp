#pragma once
// MPI for the mpi backend: started lazily, the first time the backend computes something
// (MPI_Init_thread, funneled: only the calling thread talks to MPI), finished at exit. Running
// accsum without mpirun works: MPI then starts as a singleton (one rank).
#include <string>

namespace accsum::mpi {

void ensure_started();     // MPI_Init once (unless the program already did), MPI_Finalize at exit
bool started();            // MPI is initialized and not finalized
int rank();                // 0 when MPI is not started
int size();                // 1 when MPI is not started
std::string library_version();  // callable before MPI_Init

}  // namespace accsum::mpi
