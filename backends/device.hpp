// What every backend tells about each of its devices. Suites and the harness read this; the
// backends fill it. Knows nothing about any suite.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

struct DeviceInfo {
  std::string backend;   // "opencl", "openmp", ...
  int index = 0;         // index within the backend's own listing (--device N)
  std::string api;       // "OpenCL 3.0", "OpenMP 4.5", ...
  std::string platform;  // OpenCL platform name, or the host for OpenMP
  std::string vendor;
  std::string name;
  std::string driver;    // driver version
  std::string type;      // "gpu", "cpu", "accelerator"
  int compute_units = 0;
  std::size_t max_work_group_size = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t max_alloc_bytes = 0;  // largest single buffer
  std::uint64_t local_mem_bytes = 0;
  std::uint64_t cache_bytes = 0;  // last-level cache (GPU L2, CPU LLC); 0 if unknown
  bool fp64 = false;
  // The PCI address "DDDDDDDD:BB:DD.F" (hex), where the API tells it: what finds the device in NVML.
  std::string pci_bus_id;

  // One line for tables and logs: "opencl:1 NVIDIA H100 80GB HBM3 (NVIDIA CUDA, 132 CUs)".
  std::string label() const {
    return backend + ":" + std::to_string(index) + " " + name + " (" + platform + ", " +
           std::to_string(compute_units) + " CUs)";
  }
};

}  // namespace gpubench
