// A user's kernel spec on OpenCL: the source built with -D options, buffers, launches timed by
// their events (from the first launch's start to the last one's end).
#include <map>
#include <memory>

#include "backends/opencl/opencl.hpp"
#include "common/errors.hpp"
#include "kernels/spec/operations.hpp"

namespace gpubench::spec {

namespace {

// What goes before a spec's OpenCL text: the fp64 extension where the device has it and, for a
// portable body, the GB_* macros (CUDA's are kernels/spec/portable.cu). `#line 1` keeps the
// compiler's line numbers the user's.
constexpr const char* fp64 = "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#endif\n";
constexpr const char* portable_macros = R"(#define GB_KERNEL __kernel
#define GB_GLOBAL __global
#define GB_LOCAL __local
#define GB_RESTRICT restrict
#define GB_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define GB_GLOBAL_ID(d) ((long)get_global_id(d))
#define GB_LOCAL_ID(d) ((int)get_local_id(d))
#define GB_GROUP_ID(d) ((int)get_group_id(d))
#define GB_LOCAL_SIZE(d) ((int)get_local_size(d))
#define GB_NUM_GROUPS(d) ((int)get_num_groups(d))
)";

class OpenclOperations final : public Operations {
 public:
  explicit OpenclOperations(const DeviceInfo& d) : context_(d.index) {}

  const DeviceInfo& device() const override { return context_.info(); }

  int build(const std::string& body, bool portable, const std::vector<std::pair<std::string, std::string>>& defines,
            const std::string& what) override {
    const std::string source = std::string(fp64) + (portable ? portable_macros : "") + "#line 1\n" + body;
    std::string options;
    for (const auto& [name, value] : defines) options += " -D" + name + "=" + value;
    const auto key = std::make_pair(source, options);
    if (const auto it = built_.find(key); it != built_.end()) return it->second;
    programs_.push_back(context_.build_program(source, options, what));
    return built_[key] = static_cast<int>(programs_.size()) - 1;
  }

  int allocate(std::size_t bytes) override {
    buffers_.push_back(context_.create_buffer(bytes));
    return static_cast<int>(buffers_.size()) - 1;
  }
  void release(int buffer) override { buffers_.at(static_cast<std::size_t>(buffer)) = opencl::Buffer(); }
  void write(int buffer, const void* data, std::size_t bytes, std::size_t offset) override {
    context_.write(buffers_.at(static_cast<std::size_t>(buffer)), data, bytes, offset);
  }
  void read(int buffer, void* data, std::size_t bytes, std::size_t offset) override {
    context_.read(buffers_.at(static_cast<std::size_t>(buffer)), data, bytes, offset);
  }

  double run(int program, const std::vector<Launch>& steps, int times, std::vector<double>* each) override {
    std::vector<const opencl::Kernel*> kernels;
    for (const Launch& l : steps) kernels.push_back(&kernel(program, l));
    opencl::Event first, last;
    for (int t = 0; t < times; ++t) {
      for (std::size_t s = 0; s < steps.size(); ++s) {
        opencl::Event e = context_.launch(*kernels[s], steps[s].geometry);
        if (!first) first = e;
        if (each) (*each)[s] += e.seconds();  // waits: each launch alone
        last = e;
      }
    }
    if (!last) return 0;
    last.wait();
    return static_cast<double>(last.end_ns() - first.start_ns()) * 1e-9;
  }

 private:
  // The kernel of a step with its arguments set (set again on every call: launches of one kernel
  // in different steps take different arguments).
  const opencl::Kernel& kernel(int program, const Launch& l) {
    const auto key = std::make_pair(program, l.kernel);
    auto it = kernels_.find(key);
    if (it == kernels_.end())
      it = kernels_.emplace(key, programs_.at(static_cast<std::size_t>(program)).kernel(l.kernel)).first;
    const opencl::Kernel& k = it->second;
    for (std::size_t a = 0; a < l.args.size(); ++a) {
      const LaunchArg& arg = l.args[a];
      if (arg.buffer >= 0) {
        k.set_arg(static_cast<cl_uint>(a), buffers_.at(static_cast<std::size_t>(arg.buffer)));
      } else {
        opencl::check(clSetKernelArg(k.get(), static_cast<cl_uint>(a), arg.bytes.size(), arg.bytes.data()),
                      "clSetKernelArg", "(" + l.kernel + " argument " + std::to_string(a) + ")");
      }
    }
    return k;
  }

  opencl::Context context_;
  std::vector<opencl::Program> programs_;
  std::map<std::pair<std::string, std::string>, int> built_;
  std::vector<opencl::Buffer> buffers_;
  std::map<std::pair<int, std::string>, opencl::Kernel> kernels_;
};

}  // namespace

}  // namespace gpubench::spec

GPUBENCH_REGISTER_SPEC_OPERATIONS("opencl", [](const gpubench::DeviceInfo& d) -> std::unique_ptr<gpubench::spec::Operations> {
  return std::make_unique<gpubench::spec::OpenclOperations>(d);
});
