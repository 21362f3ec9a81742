// Reading a number from the command line, with an error that names the option.
#pragma once

#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include "common/errors.hpp"

namespace gpubench {

// `value` as a T in [min, max]; a UsageError naming `option` and the bound it breaks otherwise.
template <class T>
T parse_number(const std::string& option, const std::string& value, T min, T max = std::numeric_limits<T>::max()) {
  auto bound = [&](const char* side, T limit) {
    std::ostringstream msg;
    msg << option << " must be at " << side << " " << limit << ", got " << value;
    return UsageError(msg.str());
  };
  T v{};
  const auto* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (ec == std::errc::result_out_of_range && ptr == end) {
    // A number, but beyond what T holds: name the bound it breaks.
    if constexpr (std::is_floating_point_v<T>) throw UsageError(option + " is out of range, got " + value);
    throw value.front() == '-' ? bound("least", min) : bound("most", max);
  }
  if (ec != std::errc() || ptr != end || value.empty())
    throw UsageError(option + " needs a number, got '" + value + "'");
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) throw UsageError(option + " needs a finite number, got '" + value + "'");
  }
  if (v < min) throw bound("least", min);
  if (v > max) throw bound("most", max);
  return v;
}

// `value` as a T greater than 0 (seconds, limits): 0 itself is refused, and the message says so.
template <class T>
T parse_positive(const std::string& option, const std::string& value) {
  const T v = parse_number<T>(option, value, std::numeric_limits<T>::lowest());
  if (!(v > 0)) throw UsageError(option + " must be positive (more than 0), got " + value);
  return v;
}

}  // namespace gpubench
