// The one error family of gpubench, and the one place where each kind maps to an exit code.
// Beneath backends/, bench/ and kernels/: every layer throws these.
#pragma once

#include <stdexcept>
#include <string>

namespace gpubench {

enum class ExitCode : int {
  ok = 0,
  point_failed = 1,  // a point ran but failed verification or errored on the device
  usage = 2,         // bad command line
  input = 3,         // bad problem or input file
  device = 4,        // unknown device, API failure, kernel build failure, out of memory
  internal = 5,      // a bug in gpubench
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(ExitCode::usage, what) {}
};

class InputError : public Error {
 public:
  explicit InputError(const std::string& what) : Error(ExitCode::input, what) {}
};

class DeviceError : public Error {
 public:
  explicit DeviceError(const std::string& what) : Error(ExitCode::device, what) {}
};

class VerificationError : public Error {
 public:
  explicit VerificationError(const std::string& what) : Error(ExitCode::point_failed, what) {}
};

}  // namespace gpubench
