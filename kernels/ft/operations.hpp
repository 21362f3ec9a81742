// The FT suite's operations: each API runs NAS's whole timed region (setup, forward FFT, and per
// iteration evolve, inverse FFT and checksum) and reports the checksums and each function's time.
// One implementation per API (openmp.cpp; opencl.cpp and cuda.cu supply gpu.hpp's steps and run
// the GPU sequence written once in gpu.cpp), registered by name.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/device.hpp"
#include "backends/factory_registry.hpp"
#include "backends/registry.hpp"
#include "bench/suite_kit.hpp"
#include "kernels/ft/ft.hpp"

namespace gpubench::ft {

// nas: NAS's algorithm (blocked radix-2 Stockham FFTs along each axis) on the host's threads;
// serial: the same on one thread (the study's serial column); v1: the study's GPU form, one 1-D
// FFT per work-item straight on the strided data (opencl); v2: the study's other form, the field
// rotated so that the FFT's axis is contiguous, transformed, rotated back; fast: batches of lines
// in local memory, a radix-V Stockham FFT with the values in registers, one read and one write
// of the field per axis, the initial conditions and the evolve fused into the transforms; vendor:
// the backend's FFT library (FFTW on openmp, cuFFT on cuda, VkFFT on opencl).
enum class Variant { nas, serial, v1, v2, fast, vendor };
const VariantTable<Variant>& variant_table();
inline const std::string& to_string(Variant v) { return variant_table().name(v); }
inline Variant parse_variant(const std::string& name) { return variant_table().parse(name); }  // UsageError

// Seconds spent in each of NAS's functions over a whole run (its timers): setup (evolve factors,
// initial conditions, FFT tables), the 1-D FFTs along x, y and z (cffts1/2/3, forward and
// inverse together; a library's whole 3-D transforms under fft), evolve and checksum.
struct FunctionTimes {
  double setup = 0, fft_x = 0, fft_y = 0, fft_z = 0, fft = 0, evolve = 0, checksum = 0;
  double rotate = 0;  // v2's rotations, there and back (not in cffts2/3)
  bool fused = false;  // fast: the initial conditions in cffts1's forward pass, evolve in cffts3's inverse
};

// fast's shape along one axis (its tunables): the radix, i.e. the values each work-item holds
// (4, 8, 16), and the lines per work-group.
struct AxisShape {
  int radix = 8, lines = 1;
  bool operator==(const AxisShape&) const = default;
};
using Shapes = std::array<AxisShape, 3>;  // x, y, z

struct RunResult {
  double seconds = 0;           // NAS's timed region
  std::vector<Complex> sums;    // one checksum per iteration
  FunctionTimes times;
};

// A vendor FFT library a backend has: its --fft-library key and its name with version.
struct Library {
  std::string key;   // "cufft", "vkfft", "clfft", "fftw"
  std::string name;  // "cuFFT 12.0.0"
  // How it is planned, for the records.
  std::string planner = "planned (and its kernels built) before the timed region";
};

// What a run is built with: fast's shapes, and the vendor variant's library (a key of the
// backend's; empty: its first).
struct RunChoices {
  Shapes shapes{};
  std::string library;
};

class Operations {
 public:
  virtual ~Operations() = default;
  // Allocates what class `c` needs for variant `v` (not timed), as `choices` say.
  virtual void prepare(const FtClass& c, Variant v, const RunChoices& choices) = 0;
  // One whole timed run of `v`.
  virtual RunResult run(Variant v) = 0;
  // Where this backend takes a slower path than another API's on its device, and what forces it
  // (a list of bench/suite.hpp's gap_cause), for the records' "gap_causes". Default: none.
  virtual nlohmann::json gap_causes() const { return nlohmann::json::array(); }
};

using OperationsFactory = std::function<std::unique_ptr<Operations>(const DeviceInfo&)>;
struct BackendTraits {
  std::vector<Library> vendors;   // the vendor variant's libraries in this build, the default first
  std::vector<Variant> variants;  // those this backend runs
  // The most local memory one of fast's work-groups may take on a device (CUDA's opt-in shared
  // memory is above the default 48 KiB); null: the device's local_mem_bytes.
  std::function<std::uint64_t(const DeviceInfo&)> local_memory;
  // The host memory one point of variant v on class c holds (checked when the run is planned, so
  // that a class the host cannot hold is refused before anything runs); null: none to speak of.
  std::function<std::uint64_t(const FtClass&, Variant)> host_bytes;
  // Why the vendor variant is not in this build, where `vendors` is empty.
  std::string no_vendor = "no FFT library was found when configured";
  // Why variant v of `variants` does not run on this device (empty: it does); null: all run.
  std::function<std::string(const DeviceInfo&, Variant)> refuses = nullptr;
};

// What the study's forms (v1, v2) keep on the host: the field and its twiddle factors.
inline std::uint64_t study_host_bytes(const FtClass& c, Variant v) {
  return v == Variant::v1 || v == Variant::v2 ? static_cast<std::uint64_t>(c.total()) * (sizeof(Complex) + sizeof(double))
                                              : 0;
}
using OperationsRegistry = FactoryRegistry<OperationsFactory, BackendTraits>;
OperationsRegistry& operations_registry();
inline const OperationsFactory* find_operations(const std::string& backend) {
  return operations_registry().factory(backend);
}
inline const BackendTraits* backend_traits(const std::string& backend) { return operations_registry().extra(backend); }

// The test-only hook GPUBENCH_FT_WRONG_TWIDDLE: set, one evolve factor is off by 1e-9 relative,
// that of mode (0, 0, 0) (fast's and the vendor's per-axis tables: x's factor of frequency 0,
// which mode (0, 0, 0) is part of): NAS's checksum sums 1024 points whose phases cancel any
// single mode but those with (a + 3b + 5c) a multiple of the sizes, the mean among them. Unset:
// nothing.
bool planted_wrong_twiddle();

}  // namespace gpubench::ft

#define GPUBENCH_REGISTER_FT_OPERATIONS(...)                                                                  \
  static const ::gpubench::ft::OperationsRegistry::Registrar GPUBENCH_CONCAT(gpubench_ft_ops_, __LINE__){ \
      ::gpubench::ft::operations_registry(), __VA_ARGS__}
