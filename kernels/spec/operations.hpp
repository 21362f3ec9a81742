// What a user's kernel spec needs from an API: build a source with defines, buffers, and a run of
// launches timed on the device. Each API supplies one implementation (opencl.cpp, cuda.cpp, openmp.cpp);
// kernels/spec/suite.cpp holds everything else, written once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/device.hpp"
#include "backends/factory_registry.hpp"
#include "backends/launch.hpp"
#include "backends/registry.hpp"

namespace gpubench::spec {

// A kernel argument as the API passes it: a buffer (its index), or a scalar's bytes.
struct LaunchArg {
  int buffer = -1;
  std::vector<unsigned char> bytes;
  std::string c_type;  // as C++ spells it, for OpenMP's step wrappers: "real*", "float*", "int32_t", "double", ...
};

struct Launch {
  std::string kernel;
  std::vector<LaunchArg> args;
  Geometry geometry;
};

class Operations {
 public:
  virtual ~Operations() = default;
  virtual const DeviceInfo& device() const = 0;
  // Builds `source` with -D`defines` (kept: the same source and defines are built once); `what`
  // names the build in messages (the spec file and the configuration). A `portable` body first
  // gets the API's GB_* macros (docs/spec.md), and OpenCL's text the fp64 extension. A
  // DeviceError with the compiler's log when it does not compile (on CUDA, at the first run).
  // Returns the program's index.
  virtual int build(const std::string& source, bool portable,
                    const std::vector<std::pair<std::string, std::string>>& defines, const std::string& what) = 0;
  virtual int allocate(std::size_t bytes) = 0;  // a buffer's index
  virtual void release(int buffer) = 0;
  virtual void write(int buffer, const void* data, std::size_t bytes, std::size_t offset = 0) = 0;
  virtual void read(int buffer, void* data, std::size_t bytes, std::size_t offset = 0) = 0;
  // Launches `steps` of `program` in order, `times` times over, and returns the device seconds
  // from the first launch's start to the last one's end. With `each`, every launch is timed on
  // its own (waiting between them) and its seconds added to (*each)[step].
  virtual double run(int program, const std::vector<Launch>& steps, int times, std::vector<double>* each) = 0;
};

using OperationsFactory = std::function<std::unique_ptr<Operations>(const DeviceInfo&)>;
struct BackendTraits {};
using OperationsRegistry = FactoryRegistry<OperationsFactory, BackendTraits>;
OperationsRegistry& operations_registry();

}  // namespace gpubench::spec

// GPUBENCH_REGISTER_SPEC_OPERATIONS("opencl", factory)
#define GPUBENCH_REGISTER_SPEC_OPERATIONS(...)                                                          \
  static const ::gpubench::spec::OperationsRegistry::Registrar GPUBENCH_CONCAT(gpubench_spec_ops_, __LINE__){ \
      ::gpubench::spec::operations_registry(), __VA_ARGS__}
