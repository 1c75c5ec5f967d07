#pragma once
// Which accelerator this process computes on. One rule for every device backend: an explicit
// choice (--device, else the backend's environment variable) wins; otherwise, under MPI, the
// node-local rank (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED) modulo the devices visible,
// so the ranks of one node spread over its GPUs; otherwise device 0. Backends record what they
// bound so `info` and the report say which rank used which device.
#include <string>
#include <vector>

namespace accsum::placement {

// Set by the mpi backend when MPI starts: this process's rank among the ranks of its node.
void set_node_local_rank(int rank, int ranks);
int node_local_rank();  // -1 when not under MPI (or MPI not started yet)

// --device=N (a non-negative integer); "" = not given.
void set_cli_device(const std::string& index);

// The device index to use among `visible` devices of a backend, by the rule above; `env` names
// the backend's override variable (e.g. ACCSUM_CUDA_DEVICE). Throws UsageError when an
// explicit choice is not an integer in [0, visible).
int choose(int visible, const char* env);
// Only the explicit part of the rule: the index given, or -1 when neither --device nor `env` is set.
int explicit_choice(int visible, const char* env);

// Why choose() picks what it picks, for `info`: "explicit (--device)", "node-local rank 3 of 4", ...
std::string rule(const char* env);

// What a backend bound, e.g. record("cuda", "device 1 of 8: NVIDIA H200, PCI 0000:1b:00.0").
void record(const std::string& backend, const std::string& description);
std::string recorded(const std::string& backend);  // "" when that backend bound nothing

// Gathers `mine` from every MPI rank (collective when set; the mpi backend installs it): one
// string per rank, in rank order. Without MPI: {mine}.
using GatherFn = std::vector<std::string> (*)(const std::string& mine);
void set_gather(GatherFn f);
std::vector<std::string> gather(const std::string& mine);

}  // namespace accsum::placement
