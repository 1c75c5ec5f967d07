// Plugin algorithms on the cuda backend (include/accsum/plugin.h, ACCSUM_BACKEND_CUDA): the host
// uploads the data once (the run's shared device copy), hands the plugin device pointers and a
// stream, and times the call with CUDA events on that stream.
#include <chrono>
#include <cstdlib>
#include <vector>

#include "backends/cuda/cuda_common.cuh"
#include "core/frame/plugins.hpp"

namespace accsum::cuda {
namespace {

class Stream {
 public:
  Stream() {
    bind_device();
    ACCSUM_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
    ACCSUM_CUDA_CHECK(cudaEventCreate(&a_));
    ACCSUM_CUDA_CHECK(cudaEventCreate(&b_));
  }
  ~Stream() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
    cudaStreamDestroy(s_);
  }
  cudaStream_t get() const { return s_; }
  void start() { ACCSUM_CUDA_CHECK(cudaEventRecord(a_, s_)); }
  double stop_seconds() {
    ACCSUM_CUDA_CHECK(cudaEventRecord(b_, s_));
    ACCSUM_CUDA_CHECK(cudaEventSynchronize(b_));
    float ms = 0;
    ACCSUM_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
    return ms * 1e-3;
  }

 private:
  cudaStream_t s_{};
  cudaEvent_t a_{}, b_{};
};

template <class T>
DeviceBuffer<T> upload(const T* host, size_t count) {
  DeviceBuffer<T> d(count ? count : 1);
  if (host && count) ACCSUM_CUDA_CHECK(cudaMemcpy(d.get(), host, count * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

class PluginCudaKernel : public Kernel {
 public:
  PluginCudaKernel(const plugins::PluginAlgo& a, const Problem& p, const Params& q)
      : a_(a), crash_(plugins::crash_message(a)), gemm_(a.desc.family == ACCSUM_FAMILY_GEMM) {
    args_.fill(a, q);
    auto t0 = std::chrono::steady_clock::now();
    if (gemm_) {
      call_.rows = p.rows;
      call_.cols = p.cols;
      call_.inner = p.inner;
      call_.alpha = data_float(p.data, "alpha", 1.0f);
      call_.beta = data_float(p.data, "beta", 0.0f);
      da_ = upload(p.a, static_cast<size_t>(p.rows * p.inner));
      db_ = upload(p.b, static_cast<size_t>(p.inner * p.cols));
      if (call_.beta != 0.0f) dc_ = upload(p.c, static_cast<size_t>(p.rows * p.cols));
      dout_f_ = DeviceBuffer<float>(static_cast<size_t>(p.rows * p.cols) + 1);
      call_.a = da_.get();
      call_.b = db_.get();
      call_.c = call_.beta != 0.0f ? dc_.get() : nullptr;
      call_.c_out = dout_f_.get();
      upload_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else {
      in_ = device_input(p);
      call_.x = in_->x;
      call_.y = in_->y;
      call_.n = in_->n;
      dout_ = DeviceBuffer<double>(1);
      call_.result = dout_.get();
      upload_s_ = in_->upload_seconds;
    }
    call_.param_values = args_.pointers.data();
    call_.param_count = static_cast<int>(args_.values.size());
    call_.stream = stream_.get();
    call_.message = args_.message;
    call_.message_size = sizeof args_.message;
  }
  void execute() override {
    args_.message[0] = 0;
    stream_.start();
    int rc;
    {
      plugins::CallGuard guard(crash_.c_str());
      rc = a_.desc.compute(&call_);
    }
    last_ = stream_.stop_seconds();
    plugins::check_rc(a_, rc, args_.message);
    ACCSUM_CUDA_CHECK(cudaGetLastError());
  }
  Result result() override {
    if (!gemm_) {
      double r = 0;
      ACCSUM_CUDA_CHECK(cudaMemcpy(&r, dout_.get(), sizeof r, cudaMemcpyDeviceToHost));
      return Result::scalar(r);
    }
    std::vector<float> c(static_cast<size_t>(call_.rows * call_.cols));
    if (!c.empty())
      ACCSUM_CUDA_CHECK(cudaMemcpy(c.data(), dout_f_.get(), c.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return Result{std::vector<double>(c.begin(), c.end()), {}, {}};
  }
  double last_device_seconds() const override { return last_; }
  double transfer_seconds() const override { return upload_s_; }

 private:
  const plugins::PluginAlgo& a_;
  std::string crash_;
  bool gemm_;
  plugins::CallArgs args_;
  accsum_call call_{};
  Stream stream_;
  std::shared_ptr<const DeviceInput> in_;
  DeviceBuffer<double> dout_;
  DeviceBuffer<float> da_, db_, dc_, dout_f_;
  double last_ = -1.0, upload_s_ = 0;
};

std::unique_ptr<Kernel> make(const plugins::PluginAlgo& a, const Problem& p, const Params& q) {
  return std::make_unique<PluginCudaKernel>(a, p, q);
}

plugins::BackendMakerRegistrar reg(ACCSUM_BACKEND_CUDA, make);

}  // namespace
}  // namespace accsum::cuda
