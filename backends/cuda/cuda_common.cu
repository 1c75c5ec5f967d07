#include <chrono>
#include <mutex>

#include "backends/cuda/cuda_common.cuh"
#include "core/frame/placement.hpp"
#include "core/frame/upload_cache.hpp"

namespace accsum::cuda {

void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(e) + " in " + what + " (" + file + ":" +
                           std::to_string(line) + ")");
}

bool available() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

int bind_device() {
  thread_local int bound = -1;
  int count = 0;
  ACCSUM_CUDA_CHECK(cudaGetDeviceCount(&count));
  const int want = placement::choose(count, "ACCSUM_CUDA_DEVICE");
  if (want == bound) return bound;
  ACCSUM_CUDA_CHECK(cudaSetDevice(want));
  bound = want;
  cudaDeviceProp prop{};
  ACCSUM_CUDA_CHECK(cudaGetDeviceProperties(&prop, want));
  char bus[32] = {};
  cudaDeviceGetPCIBusId(bus, sizeof bus, want);
  placement::record(
      "cuda", "device " + std::to_string(want) + " of " + std::to_string(count) + ": " + prop.name + ", PCI " + bus);
  return bound;
}

namespace {
UploadCache<DeviceInput> cache;

struct OwnedInput : DeviceInput {
  DeviceBuffer<double> bx, by;
};
}  // namespace

std::shared_ptr<const DeviceInput> device_input(const Problem& p) {
  if (p.on_device) {                            // the caller's device arrays (the library's device API): used in place
    constexpr uintptr_t kVectorLoadAlign = 16;  // the kernels load double2
    const bool aligned =
        ((reinterpret_cast<uintptr_t>(p.x) | reinterpret_cast<uintptr_t>(p.y)) % kVectorLoadAlign) == 0;
    if (aligned) {
      auto in = std::make_shared<DeviceInput>();
      in->x = p.x;
      in->y = p.y;
      in->n = p.n;
      return in;
    }
    // An array at any other offset (y = x + n for odd n, say) is copied once into aligned memory.
    auto in = std::make_shared<OwnedInput>();
    const size_t n = static_cast<size_t>(p.n), bytes = n * sizeof(double);
    in->bx = DeviceBuffer<double>(n ? n : 1);
    if (n) ACCSUM_CUDA_CHECK(cudaMemcpy(in->bx.get(), p.x, bytes, cudaMemcpyDeviceToDevice));
    if (p.y) {
      in->by = DeviceBuffer<double>(n ? n : 1);
      if (n) ACCSUM_CUDA_CHECK(cudaMemcpy(in->by.get(), p.y, bytes, cudaMemcpyDeviceToDevice));
    }
    in->x = in->bx.get();
    in->y = p.y ? in->by.get() : nullptr;
    in->n = p.n;
    return in;
  }
  std::lock_guard<std::mutex> lock(cache.mutex());
  if (auto kept = cache.find(p)) return kept;  // else the old copy is freed before a new one is allocated
  auto in = std::make_shared<OwnedInput>();
  size_t n = static_cast<size_t>(p.n);
  const bool has_y = p.generated ? recipe_has_y(*p.generated) : p.y != nullptr;
  size_t free_b = 0, total_b = 0;
  ACCSUM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  size_t need = n * sizeof(double) * (has_y ? 2 : 1);
  if (need + (256u << 20) > free_b)
    throw UsageError("input of " + std::to_string(need >> 20) + " MiB does not fit in the GPU's free memory (" +
                     std::to_string(free_b >> 20) + " MiB)");
  auto t0 = std::chrono::steady_clock::now();
  in->bx = DeviceBuffer<double>(n ? n : 1);
  if (has_y) in->by = DeviceBuffer<double>(n ? n : 1);
  if (p.generated) {
    generate_on_device(*p.generated, p.first, p.n, in->bx.get(), has_y ? in->by.get() : nullptr);
  } else if (n) {
    ACCSUM_CUDA_CHECK(cudaMemcpy(in->bx.get(), p.x, n * sizeof(double), cudaMemcpyHostToDevice));
    if (has_y) ACCSUM_CUDA_CHECK(cudaMemcpy(in->by.get(), p.y, n * sizeof(double), cudaMemcpyHostToDevice));
  }
  in->x = in->bx.get();
  in->y = has_y ? in->by.get() : nullptr;
  in->n = p.n;
  in->upload_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return cache.keep(p, in);
}

void release_device_input() {
  std::lock_guard<std::mutex> lock(cache.mutex());
  cache.clear();
}

int device_attribute(cudaDeviceAttr attr) {
  int dev = 0, value = 0;
  ACCSUM_CUDA_CHECK(cudaGetDevice(&dev));
  ACCSUM_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, dev));
  return value;
}

int sm_count() { return device_attribute(cudaDevAttrMultiProcessorCount); }

int64_t l2_cache_bytes() { return device_attribute(cudaDevAttrL2CacheSize); }

EventTimer::EventTimer() {
  bind_device();
  ACCSUM_CUDA_CHECK(cudaEventCreate(&a_));
  ACCSUM_CUDA_CHECK(cudaEventCreate(&b_));
}
EventTimer::~EventTimer() {
  cudaEventDestroy(a_);
  cudaEventDestroy(b_);
}
void EventTimer::start() { ACCSUM_CUDA_CHECK(cudaEventRecord(a_)); }
double EventTimer::stop_seconds() {
  ACCSUM_CUDA_CHECK(cudaEventRecord(b_));
  ACCSUM_CUDA_CHECK(cudaEventSynchronize(b_));
  float ms = 0;
  ACCSUM_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
  return ms * 1e-3;
}

}  // namespace accsum::cuda
