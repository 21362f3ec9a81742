// The text formatting every writer shares: fixed-point numbers, table columns, timestamps.
#pragma once

#include <cstddef>
#include <string>

namespace gpubench {

// `v` with `digits` digits after the point.
std::string fixed(double v, int digits);
// `s` padded to `width` (right-aligned when `right`). A longer `s` is kept whole: a row that
// shifts is better than a value cut short.
std::string column(const std::string& s, std::size_t width, bool right = false);
// Now, in local time, ISO 8601 with the offset: "2026-11-23T17:15:53+0000".
std::string iso_timestamp();

}  // namespace gpubench
