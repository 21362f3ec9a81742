// Floating-point precision of a point.
#pragma once

#include <string>

#include "common/errors.hpp"

namespace gpubench {

enum class Precision { f32, f64 };

inline const char* to_string(Precision p) { return p == Precision::f32 ? "f32" : "f64"; }

inline Precision parse_precision(const std::string& s) {
  if (s == "f32") return Precision::f32;
  if (s == "f64") return Precision::f64;
  throw UsageError("unknown precision '" + s + "' (valid: f32, f64)");
}

inline std::size_t bytes_of(Precision p) { return p == Precision::f32 ? 4 : 8; }

}  // namespace gpubench
