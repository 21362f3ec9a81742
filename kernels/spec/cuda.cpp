// A user's kernel spec on CUDA: the source built by NVRTC with -D defines (backends/cuda/rtc.hpp:
// cached on disk like the suites' kernels), buffers, launches timed by events on one stream.
#include <map>
#include <memory>

#include "backends/cuda/cuda.hpp"
#include "backends/cuda/rtc.hpp"
#include "common/errors.hpp"
#include "kernels/spec/operations.hpp"

namespace gpubench::spec {

namespace {

class CudaOperations final : public Operations {
 public:
  explicit CudaOperations(const DeviceInfo& d) : info_(cuda::open_device(d.index)) {}
  ~CudaOperations() override {
    for (void* p : buffers_) cuda::detail::device_free(p);
  }

  const DeviceInfo& device() const override { return info_; }

  int build(const std::string& body, bool portable, const std::vector<std::pair<std::string, std::string>>& defines,
            const std::string& what) override {
    programs_.push_back(Program{portable ? cuda::rtc_source("spec/portable.cu") + body : body, defines, what});
    return static_cast<int>(programs_.size()) - 1;
  }

  int allocate(std::size_t bytes) override {
    buffers_.push_back(cuda::detail::device_allocate(bytes));
    return static_cast<int>(buffers_.size()) - 1;
  }
  void release(int buffer) override {
    void*& p = buffers_.at(static_cast<std::size_t>(buffer));
    cuda::detail::device_free(p);
    p = nullptr;
  }
  void write(int buffer, const void* data, std::size_t bytes, std::size_t offset) override {
    cuda::check(cudaMemcpy(static_cast<char*>(buffers_.at(static_cast<std::size_t>(buffer))) + offset, data, bytes,
                           cudaMemcpyHostToDevice),
                "cudaMemcpy", "(a spec's buffer, to the device)");
  }
  void read(int buffer, void* data, std::size_t bytes, std::size_t offset) override {
    cuda::check(cudaMemcpy(data, static_cast<const char*>(buffers_.at(static_cast<std::size_t>(buffer))) + offset, bytes,
                           cudaMemcpyDeviceToHost),
                "cudaMemcpy", "(a spec's buffer, from the device)");
  }

  double run(int program, const std::vector<Launch>& steps, int times, std::vector<double>* each) override {
    const Program& p = programs_.at(static_cast<std::size_t>(program));
    // Built (or loaded) before the first event: compiling is never timed.
    std::vector<cudaKernel_t> kernels;
    for (const Launch& l : steps) kernels.push_back(cuda::rtc_kernel_of_source(p.what, p.source, l.kernel, p.defines, p.what));
    std::vector<std::vector<void*>> argv(steps.size());
    for (std::size_t s = 0; s < steps.size(); ++s) {
      for (const LaunchArg& a : steps[s].args)
        argv[s].push_back(a.buffer >= 0 ? static_cast<void*>(&buffers_.at(static_cast<std::size_t>(a.buffer)))
                                        : const_cast<unsigned char*>(a.bytes.data()));
      argv[s].push_back(nullptr);
    }
    start_.record(stream_);
    for (int t = 0; t < times; ++t) {
      for (std::size_t s = 0; s < steps.size(); ++s) {
        const Range3 g = steps[s].geometry.groups(), b = steps[s].geometry.local;
        const dim3 grid(static_cast<unsigned>(g.x), static_cast<unsigned>(g.y), static_cast<unsigned>(g.z));
        const dim3 block(static_cast<unsigned>(b.x), static_cast<unsigned>(b.y), static_cast<unsigned>(b.z));
        if (each) mark_.record(stream_);
        cuda::rtc_launch_argv(kernels[s], steps[s].kernel.c_str(), grid, block, 0, stream_.get(), argv[s].data());
        if (each) {
          end_.record(stream_);
          end_.synchronize();
          (*each)[s] += cuda::Event::seconds_between(mark_, end_);
        }
      }
    }
    end_.record(stream_);
    end_.synchronize();
    return cuda::Event::seconds_between(start_, end_);
  }

 private:
  struct Program {
    std::string source;
    cuda::Defines defines;
    std::string what;
  };
  DeviceInfo info_;
  cuda::Stream stream_;
  cuda::Event start_, end_, mark_;
  std::vector<Program> programs_;
  std::vector<void*> buffers_;
};

}  // namespace

}  // namespace gpubench::spec

GPUBENCH_REGISTER_SPEC_OPERATIONS("cuda", [](const gpubench::DeviceInfo& d) -> std::unique_ptr<gpubench::spec::Operations> {
  return std::make_unique<gpubench::spec::CudaOperations>(d);
});
