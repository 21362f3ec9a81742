// Device time per kernel over a profiled pass: every API's operations add each launch here, and
// the sums become the per-kernel rows of the records and tables.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpubench {

// One kernel's device time over a profiled pass.
struct KernelProfile {
  std::string kernel;  // "spmv", "dot", ...
  double seconds = 0;  // summed device time of all its launches
  long calls = 0;
};

class ProfileRecorder {
 public:
  // One launch of `kernel` that took `seconds`; kernels keep the order they first ran in.
  void add(std::string_view kernel, double seconds) {
    auto it = std::find_if(kernels_.begin(), kernels_.end(), [&](const KernelProfile& k) { return k.kernel == kernel; });
    if (it == kernels_.end()) it = kernels_.insert(kernels_.end(), KernelProfile{std::string(kernel), 0.0, 0});
    it->seconds += seconds;
    ++it->calls;
  }
  // The sums so far; the recorder starts again empty.
  std::vector<KernelProfile> take() { return std::exchange(kernels_, {}); }

 private:
  std::vector<KernelProfile> kernels_;
};

}  // namespace gpubench
