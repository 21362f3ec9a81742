// The FT suite's operations: each API runs NAS's whole timed region (setup, forward FFT, and per
// iteration evolve, inverse FFT and checksum) and reports the checksums and each function's time.
// One implementation per API (openmp.cpp, opencl.cpp so far), registered by name.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/device.hpp"
#include "backends/factory_registry.hpp"
#include "backends/registry.hpp"
#include "kernels/ft/ft.hpp"

namespace gpubench::ft {

// nas: NAS's algorithm (blocked radix-2 Stockham FFTs along each axis) on the host's threads;
// serial: the same on one thread (the study's serial column); v1: the study's GPU form, one 1-D
// FFT per work-item straight on the strided data (opencl); v2: the study's other form, the field
// rotated so that the FFT's axis is contiguous, transformed, rotated back (opencl); vendor: the
// backend's FFT library (FFTW on openmp).
enum class Variant { nas, serial, v1, v2, vendor };
constexpr Variant all_variants[] = {Variant::nas, Variant::serial, Variant::v1, Variant::v2, Variant::vendor};
std::string to_string(Variant v);
Variant parse_variant(const std::string& name);  // UsageError naming the valid ones

// Seconds spent in each of NAS's functions over a whole run (its timers): setup (evolve factors,
// initial conditions, FFT tables), the 1-D FFTs along x, y and z (cffts1/2/3, forward and
// inverse together; a library's whole 3-D transforms under fft), evolve and checksum.
struct FunctionTimes {
  double setup = 0, fft_x = 0, fft_y = 0, fft_z = 0, fft = 0, evolve = 0, checksum = 0;
  double rotate = 0;  // v2's rotations, there and back (not in cffts2/3)
};

struct RunResult {
  double seconds = 0;           // NAS's timed region
  std::vector<Complex> sums;    // one checksum per iteration
  FunctionTimes times;
};

class Operations {
 public:
  virtual ~Operations() = default;
  // Allocates what class `c` needs (not timed).
  virtual void prepare(const FtClass& c) = 0;
  // One whole timed run of `v`.
  virtual RunResult run(Variant v) = 0;
};

using OperationsFactory = std::function<std::unique_ptr<Operations>(const DeviceInfo&)>;
struct BackendTraits {
  std::string vendor;             // the vendor variant's library ("FFTW 3.3.10"); empty: none in this build
  std::vector<Variant> variants;  // those this backend runs
};
using OperationsRegistry = FactoryRegistry<OperationsFactory, BackendTraits>;
OperationsRegistry& operations_registry();
const OperationsFactory* find_operations(const std::string& backend);
const BackendTraits* backend_traits(const std::string& backend);

// The test-only hook GPUBENCH_FT_WRONG_TWIDDLE: set, one evolve factor is off by 1e-9 relative,
// that of mode (0, 0, 0): NAS's checksum sums 1024 points whose phases cancel any single mode
// but those with (a + 3b + 5c) a multiple of the sizes, the mean among them. Unset: nothing.
bool planted_wrong_twiddle();

}  // namespace gpubench::ft

#define GPUBENCH_REGISTER_FT_OPERATIONS(...)                                                                  \
  static const ::gpubench::ft::OperationsRegistry::Registrar GPUBENCH_CONCAT(gpubench_ft_ops_, __LINE__){ \
      ::gpubench::ft::operations_registry(), __VA_ARGS__}
