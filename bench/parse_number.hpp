// Reading a number from the command line, with an error that names the option.
#pragma once

#include <charconv>
#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>

#include "common/errors.hpp"

namespace gpubench {

// `value` as a T no smaller than `min`; a UsageError naming `option` otherwise.
template <class T>
T parse_number(const std::string& option, const std::string& value, T min) {
  T v{};
  const auto* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (ec != std::errc() || ptr != end || value.empty())
    throw UsageError(option + " needs a number, got '" + value + "'");
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) throw UsageError(option + " needs a finite number, got '" + value + "'");
  }
  if (v < min) {
    std::ostringstream msg;
    msg << option << " must be at least " << min << ", got " << value;
    throw UsageError(msg.str());
  }
  return v;
}

}  // namespace gpubench
