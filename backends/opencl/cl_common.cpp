#include "backends/opencl/cl_common.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "core/frame/artifacts.hpp"
#include "core/frame/placement.hpp"
#include "core/frame/upload_cache.hpp"

namespace accsum::opencl {

void throw_cl(cl_int err, const char* what) {
  throw std::runtime_error("OpenCL error " + std::to_string(err) + " in " + what);
}

namespace {

// A string property of an OpenCL object through its clGet*Info (length first, then the text).
template <class Handle, class Info, class GetInfo>
std::string info_str(GetInfo get_info, Handle h, Info what) {
  size_t len = 0;
  get_info(h, what, 0, nullptr, &len);
  std::string s(len, '\0');
  get_info(h, what, len, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
std::string device_str(cl_device_id d, cl_device_info what) { return info_str(clGetDeviceInfo, d, what); }
std::string platform_str(cl_platform_id p, cl_platform_info what) { return info_str(clGetPlatformInfo, p, what); }
bool has_fp64(cl_device_id d) {
  cl_device_fp_config cfg = 0;
  clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof cfg, &cfg, nullptr);
  return cfg != 0;
}

struct Candidate {
  cl_platform_id p;
  cl_device_id d;
  bool gpu;
  std::string name, platform;
};

std::vector<Candidate> candidates() {
  std::vector<Candidate> out;
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;
  std::vector<cl_platform_id> ps(np);
  clGetPlatformIDs(np, ps.data(), nullptr);
  for (auto p : ps) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ds(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
    for (auto d : ds) {
      if (!has_fp64(d)) continue;
      cl_device_type t = 0;
      clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, nullptr);
      out.push_back(
          {p, d, (t & CL_DEVICE_TYPE_GPU) != 0, device_str(d, CL_DEVICE_NAME), platform_str(p, CL_PLATFORM_NAME)});
    }
  }
  return out;
}

// --device indexes every candidate (as `info` lists them); otherwise the node-local MPI rank
// spreads the ranks over the GPUs (core/frame/placement.hpp), and without MPI the first GPU is used.
const Candidate* placed(const std::vector<Candidate>& cs) {
  int index = placement::explicit_choice(static_cast<int>(cs.size()), nullptr);
  if (index >= 0) return &cs[index];
  std::vector<const Candidate*> gpus;
  for (auto& c : cs)
    if (c.gpu) gpus.push_back(&c);
  if (gpus.empty()) return &cs.front();
  int r = placement::node_local_rank();
  return gpus[r >= 0 ? r % gpus.size() : 0];
}

std::mutex mu;
std::unique_ptr<Context> ctx_singleton;

}  // namespace

bool available() { return !candidates().empty(); }

Context& context() {
  std::lock_guard<std::mutex> lock(mu);
  if (ctx_singleton) return *ctx_singleton;
  auto cs = candidates();
  if (cs.empty()) throw UsageError("backend 'opencl' has no fp64-capable OpenCL device on this machine");
  const Candidate* pick = nullptr;
  if (const char* want = std::getenv("ACCSUM_OPENCL_DEVICE")) {
    for (auto& c : cs)
      if ((c.name + " " + c.platform).find(want) != std::string::npos) {
        pick = &c;
        break;
      }
    if (!pick) throw UsageError(std::string("ACCSUM_OPENCL_DEVICE='") + want + "' matches no fp64 OpenCL device");
  }
  if (!pick) pick = placed(cs);
  auto c = std::make_unique<Context>();
  c->platform = pick->p;
  c->device = pick->d;
  c->device_name = pick->name;
  c->platform_name = pick->platform;
  c->is_gpu = pick->gpu;
  cl_int err = 0;
  c->ctx = clCreateContext(nullptr, 1, &c->device, nullptr, nullptr, &err);
  ACCSUM_CL_CHECK(err);
  c->queue = clCreateCommandQueue(c->ctx, c->device, CL_QUEUE_PROFILING_ENABLE, &err);
  ACCSUM_CL_CHECK(err);
  clGetDeviceInfo(c->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof c->max_work_group, &c->max_work_group, nullptr);
  clGetDeviceInfo(c->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof c->compute_units, &c->compute_units, nullptr);
  placement::record("opencl", "device " + std::to_string(pick - cs.data()) + " of " + std::to_string(cs.size()) + ": " +
                                  pick->platform + ": " + pick->name);
  ctx_singleton = std::move(c);
  return *ctx_singleton;
}

std::string describe_devices() {
  std::string s;
  int i = 0;
  for (auto& c : candidates())
    s += (s.empty() ? "" : "; ") + std::to_string(i++) + " " + c.platform + ": " + c.name + (c.gpu ? " (GPU)" : "");
  return s.empty() ? "no fp64 OpenCL device" : s;
}

namespace {
// ACCSUM_OPENCL_DUMP=DIR writes each built program's binary (PTX on NVIDIA's platform) to
// DIR/program_<k>.bin and its build options to DIR/program_<k>.txt, to read what the vendor
// compiler made of a kernel (no profiler reads OpenCL). Written as every output is
// (core/frame/artifacts.hpp): DIR must be a directory.
void dump_binary(cl_program prog, size_t index, const std::string& options) {
  const char* dir = std::getenv("ACCSUM_OPENCL_DUMP");
  if (!dir || !*dir) return;
  size_t size = 0;
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0) return;
  std::string bin(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) return;
  const std::string stem = "program_" + std::to_string(index);
  write_artifact(dir, stem + ".bin", bin);
  write_artifact(dir, stem + ".txt", options + "\n");
}
}  // namespace

cl_program program(const std::string& source, const std::string& options) {
  Context& c = context();
  static std::mutex pm;
  static std::map<std::string, cl_program> cache;
  std::lock_guard<std::mutex> lock(pm);
  std::string key = options + "\n" + source;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const char* src = source.c_str();
  cl_int err = 0;
  cl_program prog = clCreateProgramWithSource(c.ctx, 1, &src, nullptr, &err);
  ACCSUM_CL_CHECK(err);
  std::string opts = "-cl-std=CL1.2 " + options;
  err = clBuildProgram(prog, 1, &c.device, opts.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t len = 0;
    clGetProgramBuildInfo(prog, c.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
    std::string log(len, '\0');
    clGetProgramBuildInfo(prog, c.device, CL_PROGRAM_BUILD_LOG, len, log.data(), nullptr);
    throw std::runtime_error("OpenCL program build failed: " + log);
  }
  cache[key] = prog;
  dump_binary(prog, cache.size(), options);
  return prog;
}

cl_kernel make_kernel(cl_program prog, const char* name) {
  cl_int err = 0;
  cl_kernel k = clCreateKernel(prog, name, &err);
  ACCSUM_CL_CHECK(err);
  return k;
}

Buffer::Buffer(size_t bytes, cl_mem_flags flags) : bytes_(bytes) {
  cl_int err = 0;
  mem_ = clCreateBuffer(context().ctx, flags, bytes ? bytes : 8, nullptr, &err);
  ACCSUM_CL_CHECK(err);
}
Buffer::~Buffer() {
  if (mem_) clReleaseMemObject(mem_);
}
void Buffer::write(const void* src, size_t bytes, size_t offset) {
  if (bytes)
    ACCSUM_CL_CHECK(clEnqueueWriteBuffer(context().queue, mem_, CL_TRUE, offset, bytes, src, 0, nullptr, nullptr));
}
void Buffer::read(void* dst, size_t bytes, size_t offset) const {
  if (bytes)
    ACCSUM_CL_CHECK(clEnqueueReadBuffer(context().queue, mem_, CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr));
}

std::shared_ptr<const DeviceInput> device_input(const Problem& p) {
  static UploadCache<DeviceInput> cache;
  std::lock_guard<std::mutex> lock(cache.mutex());
  if (auto kept = cache.find(p)) return kept;
  auto in = std::make_shared<DeviceInput>();
  size_t bytes = static_cast<size_t>(p.n) * sizeof(double);
  cl_ulong max_alloc = 0;
  clGetDeviceInfo(context().device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, nullptr);
  if (bytes > max_alloc)
    throw UsageError("input of " + std::to_string(bytes >> 20) + " MiB exceeds the OpenCL device's largest buffer (" +
                     std::to_string(max_alloc >> 20) + " MiB)");
  auto t0 = std::chrono::steady_clock::now();
  in->x = Buffer(bytes, CL_MEM_READ_ONLY);
  in->x.write(p.x, bytes);
  if (p.y) {
    in->y = Buffer(bytes, CL_MEM_READ_ONLY);
    in->y.write(p.y, bytes);
  }
  in->n = p.n;
  in->upload_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return cache.keep(p, in);
}

double event_span_seconds(cl_event first, cl_event last) {
  cl_ulong a = 0, b = 0;
  ACCSUM_CL_CHECK(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof a, &a, nullptr));
  ACCSUM_CL_CHECK(clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof b, &b, nullptr));
  return (b - a) * 1e-9;
}

double ClKernel::finish(const Buffer& result, cl_event first, cl_event last) {
  double r = 0;
  result.read(&r, sizeof r);
  last_ = event_span_seconds(first, last);
  clReleaseEvent(first);
  clReleaseEvent(last);
  return r;
}

}  // namespace accsum::opencl
